import Foundation

extension AccessTokenVerifier {
    /// What a verifier trusts and how hard it works to keep its keys: the issuer and audience are
    /// pinned here, never taken from a token.
    public struct Configuration: Sendable {
        /// Vouch's public URL exactly as it writes `iss` (no trailing slash).
        public var issuer: String
        /// This service's audience, as its tokens are requested with (`{"audience": ...}`), or the
        /// app id when tokens are minted for the app as a whole.
        public var audience: String
        /// Where the keys are fetched; `<issuer>/.well-known/jwks.json` unless set.
        public var jwksURL: URL
        /// How far the clocks of Vouch and this service may disagree, in seconds.
        public var leeway: Double = 60
        /// The shortest a fetched key set is kept, whatever `Cache-Control` says (`no-cache` included).
        public var minimumCacheLifetime: Double = 60
        /// The longest a fetched key set is kept, whatever `max-age` says: Vouch publishes a key
        /// twice this long before signing with it, so a rotation is always seen in time.
        public var maximumCacheLifetime: Double = 3600
        /// Tokens naming an unknown `kid` cause one fetch per this interval at most, so a flood
        /// of forged tokens cannot turn into a flood of fetches.
        public var unknownKeyRefetchInterval: Double = 60
        /// After a failed fetch, the next one waits this long; the last good keys are used meanwhile.
        public var retryInterval: Double = 10
        /// A fetch that takes longer fails (connection, headers and body together).
        public var fetchTimeout: Duration = .seconds(5)
        /// A key set document larger than this is refused (a few keys take a few hundred bytes).
        public var maximumKeySetBytes: Int = 64 * 1024
        /// A longer token is refused before it is hashed or parsed (Vouch's are under 1 KiB).
        public var maximumTokenBytes: Int = 8 * 1024
        /// How many verified tokens are remembered by hash; the oldest goes first when full.
        public var verificationCacheCapacity: Int = 10_000

        /// - Parameters:
        ///   - issuer: pinned `iss`; its JWKS URL is derived from it.
        ///   - audience: pinned `aud`.
        public init(issuer: String, audience: String) {
            self.issuer = issuer
            self.audience = audience
            self.jwksURL = URL(string: issuer + "/.well-known/jwks.json") ?? URL(fileURLWithPath: "/dev/null")
        }
    }
}
