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
    /// The user the token names (`prn`, or the user id in Sinch's `sub`), when well-formed.
    public internal(set) var userID: String?
    /// The first rule the token breaks that needs no look-up, when it breaks one.
    public internal(set) var settled: TokenRejection?

    /// Sinch: the date in `kid` (#8), when well-formed.
    var sinchKeyDate: CivilDate?

    /// The decoded token, `nil` when it breaks a structural rule (#1–#4, then `settled`).
    let jws: CompactJWS?

    /// The profile the header selects (PROTOCOL §5.3); `nil` when the token could not be decoded.
    public var profile: TokenProfile? { jws.map { TokenProfile.select(for: $0.header) } }

    init(appID: UUID, jws: CompactJWS?, settled: TokenRejection?) {
        self.appID = appID
        self.jws = jws
        self.settled = settled
    }
}
