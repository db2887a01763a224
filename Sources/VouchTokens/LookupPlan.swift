import Foundation

/// Every look-up a token's verification will make, told to the context before the first of them,
/// so that a context backed by a database can fetch it all in one round trip
/// (`VerificationContext.prepare`).
///
/// Nothing in a plan is verified: it is what the token *says*, read before any rule has judged
/// it. The order of PROTOCOL §5.4 is kept because the verifier still asks each question when its
/// rule comes, and the claim-based ones only once the signature holds; a context answers each
/// question as asked, not as planned (they differ when a claim turns out malformed, or `iss`
/// names a provider other than the key's, or a Sinch secret belongs to another app than the
/// request's).
public struct LookupPlan: Sendable, Equatable {
    /// Layer: the key named in `kid`.
    public var layerKeyID: UUID?
    /// Sinch: the application key named in `iss`, whose secret signs the token.
    public var applicationKey: UUID?
    /// The claim-based questions as they will be asked if every claim is well-formed and `iss`
    /// names the key's provider.
    public var claims: ClaimQuestions

    public init(layerKeyID: UUID? = nil, applicationKey: UUID? = nil, claims: ClaimQuestions) {
        self.layerKeyID = layerKeyID
        self.applicationKey = applicationKey
        self.claims = claims
    }
}
