/// One broken rule of PROTOCOL §5.4, with the detail that tells the token's author what to fix.
public struct TokenRejection: Error, Sendable, Equatable, Codable {
    public var reason: RejectionReason
    /// The header parameter at fault (reasons #5–#7), sent as `data.param`.
    public var param: String?
    /// The claim at fault (#13–#15 and the claim-based reasons), sent as `data.claim`.
    public var claim: String?
    /// A further explanation that is not part of the fixed message, sent as `data.hint`
    /// (for example that `iat` looks like milliseconds).
    public var hint: String?

    public init(_ reason: RejectionReason, param: String? = nil, claim: String? = nil, hint: String? = nil) {
        self.reason = reason
        self.param = param
        self.claim = claim
        self.hint = hint
    }

    /// The fixed description of the reason (PROTOCOL §5.4).
    public var message: String { reason.message }
}
