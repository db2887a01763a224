import Foundation

/// The durable, ordered log of session endings: every operation that ends a session before its
/// expiry appends to it in the same transaction as the ending, so that an entry exists if and
/// only if its ending committed. Readers (each server instance's live channel, and later other
/// services) follow it by position and never miss an entry: positions are handed out in commit
/// order, so a reader that has seen position `p` has seen every entry below it.
///
/// Expiry is not logged: a session's `expiresAt` is known to whoever holds it.
public struct SessionEnding: Sendable, Equatable {
    /// Strictly increasing in commit order, from 1.
    public var position: Int64
    /// Unix seconds of the ending.
    public var at: Int64
    public var kind: SessionEndingKind
    public var scope: SessionEndingScope
    /// For `.cutOff`: the scope's cutoff generation after the cutoff. A session that recorded a
    /// lower generation of that scope is over; one that recorded this one or later is not.
    public var generation: Int64?
    /// For `.cutOff`: the operator's reason, if one was given.
    public var reason: String?

    public init(
        position: Int64, at: Int64, kind: SessionEndingKind, scope: SessionEndingScope,
        generation: Int64? = nil, reason: String? = nil
    ) {
        self.position = position
        self.at = at
        self.kind = kind
        self.scope = scope
        self.generation = generation
        self.reason = reason
    }
}

/// How sessions were ended.
public enum SessionEndingKind: String, Sendable, Equatable, CaseIterable {
    /// An operator's or the client's own revocation: the client may sign in again.
    case revoked
    /// The user signed the device out from another one: the device is to forget the user.
    case signedOut = "signed_out"
    /// A cutoff of the entry's scope (`generation` says which sessions it reached).
    case cutOff = "cut_off"
    /// The user was suspended: every session of the user in the app ended.
    case suspended
}

/// What an entry reaches.
public enum SessionEndingScope: Sendable, Hashable {
    /// One session, by its public id, with its app and user so that a reader can route the entry
    /// without a look-up.
    case session(UUID, appID: UUID, userID: String)
    /// Every session of one user in one app (a suspension, or a user cutoff).
    case user(appID: UUID, userID: String)
    case app(UUID)
    case provider(UUID)
    case key(UUID)
}

/// A read of the log: the entries after a position, and where the log stands.
public struct SessionEndingsPage: Sendable, Equatable {
    /// Ascending by position, at most the limit asked for.
    public var entries: [SessionEnding]
    /// The lowest position the log still holds (`nil` when it holds none). A reader whose last
    /// position is below `oldestPosition - 1` has missed purged entries and must re-check what it
    /// holds against the store.
    public var oldestPosition: Int64?
    /// The highest position ever handed out (0 before the first entry): where a new reader starts.
    public var latestPosition: Int64

    public init(entries: [SessionEnding], oldestPosition: Int64?, latestPosition: Int64) {
        self.entries = entries
        self.oldestPosition = oldestPosition
        self.latestPosition = latestPosition
    }

    /// Whether a reader that last saw `position` missed entries that were purged since.
    public func missedEntries(after position: Int64) -> Bool {
        guard let oldestPosition else { return position < latestPosition }
        return position < oldestPosition - 1
    }
}

/// A store shared by many server instances tells every instance when any of them commits a
/// session ending (PostgreSQL: LISTEN/NOTIFY). A store that one process owns needs no feed: the
/// process sees its own endings.
public protocol SessionEndingFeed: Sendable {
    /// Runs until cancelled. Calls `wake` after an ending commits on any instance, and after every
    /// (re)connection of the feed, since notifications sent while it was away are lost and the
    /// caller must catch up from the log. Reconnects by itself with backoff; `connected` tells
    /// whether it is listening now (for health and tests).
    func followSessionEndings(
        wake: @escaping @Sendable () -> Void, connected: @escaping @Sendable (Bool) -> Void
    ) async throws
}

extension SessionEndingScope {
    /// How a scope is stored in a row of `session_endings`, the same on every backend: `scope`
    /// names the kind, and exactly the id columns that kind needs are set.
    public struct Columns: Sendable, Equatable {
        public var scope: String
        public var sessionID: UUID? = nil
        public var appID: UUID? = nil
        public var userID: String? = nil
        public var providerID: UUID? = nil
        public var keyID: UUID? = nil
    }

    /// The row's columns for this scope (read back by `SessionEnding.init(row:)`).
    public var columns: Columns {
        switch self {
        case .session(let id, let appID, let userID):
            Columns(scope: "session", sessionID: id, appID: appID, userID: userID)
        case .user(let appID, let userID): Columns(scope: "user", appID: appID, userID: userID)
        case .app(let id): Columns(scope: "app", appID: id)
        case .provider(let id): Columns(scope: "provider", providerID: id)
        case .key(let id): Columns(scope: "key", keyID: id)
        }
    }
}

extension CutoffTarget {
    /// The scope of the log entry a cutoff of this target appends.
    public var endingScope: SessionEndingScope {
        switch self {
        case .app(let id): .app(id)
        case .provider(let id): .provider(id)
        case .key(let id): .key(id)
        case .user(let appID, let userID): .user(appID: appID, userID: userID)
        }
    }
}

extension SessionEndReason {
    /// The kind of log entry an ending of one session for this reason appends (a suspension's is
    /// the user's `.suspended` entry, not one per session).
    public var endingKind: SessionEndingKind {
        switch self {
        case .revoked: .revoked
        case .signedOut: .signedOut
        case .userSuspended: .suspended
        }
    }
}
