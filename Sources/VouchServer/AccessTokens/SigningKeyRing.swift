import Crypto
import Foundation
import Logging
import Synchronization
import VouchProtocol
import VouchStore
import VouchSupport
import VouchTokens

/// Vouch's signing keys as this instance holds them: the one that signs, the ones the JWKS
/// publishes, and a reader of its own tokens. Loaded from the store, where rotations happen
/// (`rotate`): any instance may add a due successor and exactly one succeeds, so every instance
/// converges on the same chain by reloading it.
///
/// The request path reads a snapshot under a lock (no store access, no suspension); only the
/// first mint of a fresh database, an unknown `kid` on introspection, and the schedule's checks
/// load from the store.
final class SigningKeyRing: Sendable {
    /// What the request path reads.
    struct Snapshot: Sendable {
        let signing: AccessTokenSigningKey?
        let reader: AccessTokenReader
        /// `GET /.well-known/jwks.json`'s body.
        let jwks: [UInt8]
        /// When it was loaded (uptime seconds), to bound reloads for unknown key ids.
        let loadedAt: Double
    }

    let store: any Store
    let schedule: SigningKeySchedule
    /// The configured public URL, or the address the server bound when none is configured (known
    /// once it listens, before any request).
    var issuer: String { issuerText.withLock { $0 } }
    private let issuerText: Mutex<String>
    let leewaySeconds: Int64
    let clock: @Sendable () -> Int64
    let uptime: @Sendable () -> Double
    let logger: Logger
    private let snapshot: Mutex<Snapshot>
    /// Loads are numbered as they start: a load that read the store earlier never replaces the
    /// snapshot of one that read it later. (Rotations need no ordering here: the store lets one
    /// successor in, and deleting what is no longer published twice deletes it once.)
    private let loads = Mutex<(started: Int, installed: Int)>((0, 0))
    /// Access tokens that verified, by the SHA-256 of their text (`read`).
    private let verified = Mutex(TwoGenerations<[UInt8], AccessTokenClaims>(generationSize: 8_192))

    init(
        store: any Store, schedule: SigningKeySchedule, issuer: String, leewaySeconds: Int64,
        clock: @escaping @Sendable () -> Int64, uptime: @escaping @Sendable () -> Double, logger: Logger
    ) {
        self.store = store
        self.schedule = schedule
        issuerText = Mutex(issuer)
        self.leewaySeconds = leewaySeconds
        self.clock = clock
        self.uptime = uptime
        self.logger = logger
        snapshot = Mutex(
            Snapshot(
                signing: nil, reader: AccessTokenReader(issuer: issuer, leewaySeconds: leewaySeconds, keys: []),
                jwks: Array(#"{"keys":[]}"#.utf8), loadedAt: -.infinity))
    }

    var current: Snapshot { snapshot.withLock { $0 } }

    /// Sets the issuer before the first request (the bound address, when no public URL is
    /// configured) and rebuilds the reader for it.
    func setIssuer(_ issuer: String) async {
        issuerText.withLock { $0 = issuer }
        try? await load()
    }

    /// The key to sign with now; on a fresh database, the first key, made on demand.
    func signingKey() async throws -> AccessTokenSigningKey {
        if let key = current.signing { return key }
        try await rotate()
        guard let key = current.signing else {
            throw StoreError.unavailable("no signing key could be loaded")
        }
        return key
    }

    /// Reads a token with the loaded keys; when it names a key this instance has not loaded
    /// (added by another instance since the last check), reloads once (at most once a second)
    /// and reads again.
    ///
    /// A token read before is found by its SHA-256 (only tokens that verified are kept): a service
    /// introspecting the same token on each of a user's requests costs a hash, not an ECDSA check.
    /// A kept token is still held to its expiry. Only who holds a token's exact bytes can tell a
    /// kept one by its time, and they learn nothing they did not know.
    func read(_ token: String, now: Int64) async -> Result<AccessTokenClaims, AccessTokenRefusal> {
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        let kept = verified.withLock { $0.value(for: digest).value }
        if let kept {
            return kept.expiresAt > now - leewaySeconds ? .success(kept) : .failure(.expired)
        }
        let snapshot = current
        var result = snapshot.reader.read(token, now: now)
        if case .failure(.unknownKey) = result, uptime() - snapshot.loadedAt >= 1 {
            try? await load()
            result = current.reader.read(token, now: now)
        }
        if case .success(let claims) = result {
            // What the table lets go is freed here, after the lock.
            _ = verified.withLock { $0.set(claims, for: digest) }
        }
        return result
    }

    /// Adds a successor when the schedule says one is due (racing instances: the store lets one
    /// win, the others just reload), deletes keys no longer published, and reloads.
    func rotate() async throws {
        let now = clock()
        let keys = try await store.signingKeys()
        let plan = SigningKeyPlan(keys: keys, schedule: schedule, now: now)
        if let successor = plan.successor {
            let fresh = AccessTokenSigningKey.generate()
            let added = try await store.addSigningKey(
                SigningKeyRecord(
                    sequence: successor.sequence, keyID: fresh.keyID, algorithm: AccessTokenSigningKey.algorithm,
                    privateKey: fresh.rawPrivateKey, createdAt: now, activatesAt: successor.activatesAt))
            if added {
                logger.notice(
                    "Published a new signing key for access tokens",
                    metadata: ["kid": "\(fresh.keyID)", "sequence": "\(successor.sequence)", "signs_from": "\(successor.activatesAt)"])
            }
        }
        if plan.firstKept > 1, keys.contains(where: { $0.sequence < plan.firstKept }) {
            try await store.deleteSigningKeys(below: plan.firstKept)
        }
        try await load()
    }

    /// Reloads the keys from the store.
    func load() async throws {
        let number = loads.withLock { loads in
            loads.started += 1
            return loads.started
        }
        let now = clock()
        let plan = SigningKeyPlan(keys: try await store.signingKeys(), schedule: schedule, now: now)
        var parsed: [AccessTokenSigningKey] = []
        for record in plan.published {
            do {
                parsed.append(try AccessTokenSigningKey(keyID: record.keyID, rawPrivateKey: record.privateKey))
            } catch {
                logger.error("A stored signing key is not a P-256 key; it is skipped", metadata: ["kid": "\(record.keyID)"])
            }
        }
        let signing = plan.signing.flatMap { signing in parsed.first { $0.keyID == signing.keyID } }
        let jwks = CanonicalJSON.serialize(.object(["keys": .array(parsed.map(\.jwk))]))
        let fresh = Snapshot(
            signing: signing, reader: AccessTokenReader(issuer: issuer, leewaySeconds: leewaySeconds, keys: parsed),
            jwks: jwks, loadedAt: uptime())
        loads.withLock { loads in
            guard number > loads.installed else { return }
            loads.installed = number
            snapshot.withLock { $0 = fresh }
        }
    }
}
