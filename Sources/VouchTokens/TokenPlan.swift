import Foundation
import VouchProtocol

/// What a token names that only the world can answer, read from the token before any rule has
/// judged it: the first of the verifier's three steps (`TokenVerifier.plan`, one look-up of
/// `VerificationFacts`, `TokenVerifier.verdict`).
///
/// Nothing in a plan is verified. A server reads every fact it names in one round trip; the verdict
/// then believes a claim only once the signature holds. A plan whose token already breaks a rule
/// that needs no look-up (#1–#8) is `settled`: it names nothing, and its verdict is that rule.
public struct TokenPlan: Sendable {
    /// The app the sign-in is for.
    public let appID: UUID
    /// Layer: the key in `kid`.
    public internal(set) var keyID: UUID?
    /// Layer: the provider in `iss`.
    public internal(set) var providerID: UUID?
    /// Layer: the server-issued nonce in `nce`.
    public internal(set) var serverNonce: String?
    /// Sinch: the application key in `iss`, whose secret signs the token.
    public internal(set) var applicationKey: UUID?
    /// Sinch: the client-made nonce in `nonce`.
    public internal(set) var registrationNonce: String?
    /// A fetched key: the `kid` as the token writes it, looked up in the selected provider's set.
    public internal(set) var sourceKeyID: String?
    /// A fetched key: the provider `iss` selects, by its id or by its exact issuer.
    public internal(set) var sourceProvider: ProviderSelector?
    /// ID token: what makes it single-use (#25), its `jti`, or its SHA-256 when it has none,
    /// with its `iss`: `TokenPlan.replayDigest`.
    public internal(set) var replayDigest: [UInt8]?
    /// ID token: its `exp`, when it is an integer; until then a use of it is remembered.
    public internal(set) var expiresAt: Int64?
    /// The user the token names (`prn`, or the user id in Sinch's `sub`), when well-formed.
    public internal(set) var userID: String?
    /// The first rule the token breaks that needs no look-up, when it breaks one.
    public internal(set) var settled: TokenRejection?

    /// Sinch: the date in `kid` (#8), when well-formed.
    var sinchKeyDate: CivilDate?

    /// The decoded token, `nil` when it breaks a structural rule (#1–#4, then `settled`).
    let jws: CompactJWS?

    /// The profile the header selects (PROTOCOL §5.3); `nil` when the token could not be decoded.
    public var profile: TokenProfile? { jws.map { TokenProfile.select(for: $0.header, claims: $0.claims) } }

    init(appID: UUID, jws: CompactJWS?, settled: TokenRejection?) {
        self.appID = appID
        self.jws = jws
        self.settled = settled
    }
}
