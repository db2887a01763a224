import Crypto
import Foundation
import Logging

/// Verifies Vouch's access tokens offline: against the issuer's published keys, the pinned issuer
/// and audience, the clock, and the sessions the stream of endings reported over.
///
/// A service checks each request's token without calling Vouch, so it keeps working (and stays
/// fast) while Vouch is slow or down; the price of offline checks, a token that outlives its
/// session, is paid back by ``SessionEndingsFollower``, which feeds ``endings``. One verifier is
/// shared by every request: it is `Sendable`, and a token seen before costs a SHA-256 and a
/// table look-up (see ``verify(_:)``).
public final class AccessTokenVerifier: Sendable {
    /// The settings it was made with.
    public let configuration: Configuration
    /// The endings this verifier refuses tokens for; give it to a ``SessionEndingsFollower``.
    public let endings: SessionEndings
    private let keys: KeySource
    private let cache: VerificationCache
    private let claims: AccessTokenClaims
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - configuration: the pinned issuer and audience, and the limits.
    ///   - logger: key set fetches and their failures (warnings); never a token.
    ///   - now: Unix seconds; tests move it, services keep the system clock.
    public init(
        configuration: Configuration, logger: Logger = Logger(label: "VouchResourceServer"),
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.configuration = configuration
        self.now = now
        self.endings = SessionEndings(sessionMemory: max(360, Double(AccessTokenClaims.maximumLifetime) + configuration.leeway), now: now)
        self.cache = VerificationCache(capacity: configuration.verificationCacheCapacity)
        self.claims = AccessTokenClaims(issuer: configuration.issuer, audience: configuration.audience, leeway: configuration.leeway)
        self.keys = KeySource(
            settings: .init(
                url: configuration.jwksURL,
                lifetime: CacheLifetime(minimum: configuration.minimumCacheLifetime, maximum: configuration.maximumCacheLifetime),
                unknownKeyRefetchInterval: configuration.unknownKeyRefetchInterval, retryInterval: configuration.retryInterval,
                fetch: BoundedFetch(maximumBytes: configuration.maximumKeySetBytes, timeout: configuration.fetchTimeout)),
            now: now, logger: logger)
    }

    /// The usual case: tokens of `issuer` minted for `audience`, with the default limits.
    public convenience init(issuer: String, audience: String, logger: Logger = Logger(label: "VouchResourceServer")) {
        self.init(configuration: Configuration(issuer: issuer, audience: audience), logger: logger)
    }

    /// The facts of `token` when every rule holds, or why it does not.
    ///
    /// A token verified before is found by its SHA-256 and only its `exp` and the endings are
    /// checked again; a new one is parsed, its signature checked with the key its `kid` names
    /// (fetching the key set when needed, see ``Configuration``) and its claims held to the
    /// contract. Only a fetch of the key set ever makes this wait.
    public func verify(_ token: String) async throws(AccessTokenRejection) -> VerifiedAccessToken {
        var token = token
        guard token.utf8.count <= configuration.maximumTokenBytes else { throw .malformed("token is too long") }
        let key = token.withUTF8 { VerificationCache.Key(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
        if let cached = cache.lookup(key) {
            guard cached.expiresAt.timeIntervalSince1970 > now() - configuration.leeway else {
                cache.remove(key)
                throw .expired
            }
            guard !endings.hasEnded(cached) else { throw .sessionEnded }
            return cached
        }
        let verified = try await verifyAnew(Array(token.utf8))
        cache.insert(verified, for: key)
        guard !endings.hasEnded(verified) else { throw .sessionEnded }
        return verified
    }

    /// Fetches the key set now (or waits for the fetch in flight): for a service that wants its
    /// keys before its first request, or a readiness check. Throws ``AccessTokenRejection/keysUnavailable``
    /// when the fetch failed; keys fetched before stay in use.
    public func refreshKeys() async throws(AccessTokenRejection) {
        try await keys.refresh()
    }

    /// The key set in use and the last fetch's outcome.
    public var keySetStatus: KeySetStatus { keys.status }

    /// How many verified tokens are cached now.
    public var cachedTokenCount: Int { cache.count }

    private func verifyAnew(_ bytes: [UInt8]) async throws(AccessTokenRejection) -> VerifiedAccessToken {
        let parsed = try CompactToken(bytes)
        let publicKey = try await keys.key(for: parsed.keyID)
        guard parsed.signature.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: parsed.signature),
            publicKey.isValidSignature(signature, for: parsed.signingInput)
        else { throw .badSignature }
        return try claims.verify(parsed.payload, now: now())
    }
}
