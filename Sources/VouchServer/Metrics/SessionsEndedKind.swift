import VouchStore

/// The `kind` label of `vouch_sessions_ended_total`: how a session was ended before its expiry.
enum SessionsEndedKind: String, CaseIterable, Sendable {
    /// By an operator, or by its own client's `DELETE /sessions/<token>`.
    case revoked
    /// By a cutoff of its app, provider, key or user.
    case cutOff = "cut_off"
    /// By its user, from another device.
    case signedOut = "signed_out"

    /// `nil` for a suspension's endings, which the store does not count back (the audit log
    /// records each suspension).
    init?(_ reason: SessionEndReason) {
        switch reason {
        case .revoked: self = .revoked
        case .signedOut: self = .signedOut
        case .userSuspended: return nil
        }
    }
}
