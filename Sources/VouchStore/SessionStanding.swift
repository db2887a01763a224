import Foundation

/// Whether a session may be used, and if not, why: the one rule behind every path that accepts a
/// session (authenticated requests, listings, and what later checks a session), so that no two
/// paths can disagree on it.
///
/// A verdict as a value: the server turns it into the challenge's `reason`, the listings keep the
/// live ones.
public enum SessionStanding: Sendable, Equatable {
    case live
    /// The user is suspended (whether or not the suspension already ended this session).
    case userSuspended
    /// The user signed this device out from another one.
    case signedOut
    /// An operator or the client ended it (`SessionEndReason.revoked`).
    case revoked
    /// A cutoff of one of its objects came after it was made; `reason` is the cutoff's.
    case cutOff(CutoffScope, reason: String?)
    case expired

    /// In this order: the user's suspension, the session's own end, the cutoffs (app, provider,
    /// key, user: the widest named first), then expiry. A cutoff is a generation compared, never a
    /// time: the session is cut off exactly when an object's generation moved since it was made.
    public init(of lookup: SessionLookup, at now: Int64) {
        let session = lookup.session
        if lookup.user?.suspended == true {
            self = .userSuspended
            return
        }
        switch session.endReason {
        case .signedOut:
            self = .signedOut
            return
        case .revoked, .userSuspended:
            // A lifted suspension does not revive what it ended: that answers as revoked.
            self = .revoked
            return
        case nil:
            break
        }
        if let cutoff = Self.cutoff(lookup) {
            self = cutoff
            return
        }
        self = session.expiresAt <= now ? .expired : .live
    }

    public var isLive: Bool { self == .live }

    private static func cutoff(_ lookup: SessionLookup) -> SessionStanding? {
        let recorded = lookup.session.generations
        let current = lookup.cutoffs
        if let app = current.app, app.generation != recorded.app { return .cutOff(.app, reason: app.reason) }
        if let provider = current.provider, let made = recorded.provider, provider.generation != made {
            return .cutOff(.provider, reason: provider.reason)
        }
        if let key = current.key, let made = recorded.key, key.generation != made {
            return .cutOff(.key, reason: key.reason)
        }
        if let user = lookup.user, user.cutoff.generation != recorded.user {
            return .cutOff(.user, reason: user.cutoff.reason)
        }
        return nil
    }
}
