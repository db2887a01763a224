import Foundation

/// The objects a cutoff can name: every session opened under one of them before the cutoff
/// returned is over, every session opened after it is untouched.
///
/// A cutoff is a generation counter on the object's row, never a time: a session records the
/// generation of each of its objects when it is made, and it is live only while each is still
/// current. Two instances whose clocks disagree still agree on a counter.
public enum CutoffTarget: Sendable, Hashable {
    case app(UUID)
    case provider(UUID)
    case key(UUID)
    case user(appID: UUID, userID: String)

    public var scope: CutoffScope {
        switch self {
        case .app: .app
        case .provider: .provider
        case .key: .key
        case .user: .user
        }
    }
}

/// The kind of object a cutoff names, as the API spells it.
public enum CutoffScope: String, Sendable, CaseIterable {
    case app, provider, key, user
}

/// An object's cutoff as stored: its generation (0 until its first cutoff), and when and why the
/// last one was made.
public struct ScopeCutoff: Sendable, Equatable {
    public var generation: Int64
    /// Unix seconds of the last cutoff; `nil` while there was none.
    public var at: Int64?
    public var reason: String?

    public init(generation: Int64 = 0, at: Int64? = nil, reason: String? = nil) {
        self.generation = generation
        self.at = at
        self.reason = reason
    }

    /// No cutoff was ever made.
    public static let none = ScopeCutoff()
}

/// What a cutoff did: the object's new cutoff, and how many sessions it ended (sessions that were
/// live when it committed and are not any more).
public struct CutoffResult: Sendable, Equatable {
    public var cutoff: ScopeCutoff
    public var sessionsEnded: Int

    public init(cutoff: ScopeCutoff, sessionsEnded: Int) {
        self.cutoff = cutoff
        self.sessionsEnded = sessionsEnded
    }
}

/// The generations a session recorded of its objects when it was made. A Sinch session has no
/// provider and no key; a session made before cutoffs existed recorded generation 0 of its app and
/// user and nothing of the others.
public struct SessionGenerations: Sendable, Equatable {
    public var app: Int64
    public var provider: Int64?
    public var key: Int64?
    public var user: Int64

    public init(app: Int64 = 0, provider: Int64? = nil, key: Int64? = nil, user: Int64 = 0) {
        self.app = app
        self.provider = provider
        self.key = key
        self.user = user
    }
}

/// The current cutoffs of a session's catalogue objects, read with the session (the user's is on
/// its `UserRecord`). `nil` where the session names no such object, or it no longer exists.
public struct CatalogueCutoffs: Sendable, Equatable {
    public var app: ScopeCutoff?
    public var provider: ScopeCutoff?
    public var key: ScopeCutoff?

    public init(app: ScopeCutoff? = nil, provider: ScopeCutoff? = nil, key: ScopeCutoff? = nil) {
        self.app = app
        self.provider = provider
        self.key = key
    }
}
