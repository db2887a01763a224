import Foundation

/// What `Store.eraseUser` did, in one transaction: the user's live sessions ended (each logged as
/// signed out, so every device forgets the user and every follower refuses its tokens), their
/// rows and the user's row deleted, and the audit log's mentions of the user replaced by
/// `pseudonym`. The next sign-in of the same user id makes a new user.
public struct UserErasure: Sendable, Equatable {
    /// What now stands for the user in the audit log.
    public var pseudonym: String
    /// Live sessions the erasure ended (logged, pushed to the live channel).
    public var sessionsEnded: Int
    /// Session rows deleted: the ended ones, and the ones it ended.
    public var sessionsForgotten: Int
    /// Audit entries whose object was the user and now is `pseudonym`.
    public var auditEntriesPseudonymised: Int

    public init(pseudonym: String, sessionsEnded: Int, sessionsForgotten: Int, auditEntriesPseudonymised: Int) {
        self.pseudonym = pseudonym
        self.sessionsEnded = sessionsEnded
        self.sessionsForgotten = sessionsForgotten
        self.auditEntriesPseudonymised = auditEntriesPseudonymised
    }
}

/// Everything the store holds about one user of one app but the audit log (read through
/// `Store.auditEntries` by the user's id): the user's row, every session the store still keeps
/// (ended ones too, until housekeeping purges them), and the user's security events the outbox
/// still keeps.
public struct UserDataExport: Sendable, Equatable {
    public var user: UserRecord
    /// Unix seconds the user's row was made (their first sign-in, or a suspension before it).
    public var createdAt: Int64
    /// Unix seconds the row last changed.
    public var updatedAt: Int64
    /// Newest first.
    public var sessions: [SessionRecord]
    /// Oldest first, by position.
    public var events: [SecurityEventRecord]

    public init(user: UserRecord, createdAt: Int64, updatedAt: Int64, sessions: [SessionRecord], events: [SecurityEventRecord]) {
        self.user = user
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sessions = sessions
        self.events = events
    }

    /// The most sessions and events an export carries, each: a user has a handful of devices, and
    /// the outbox keeps a week; the bound keeps one answer's size finite whatever a user did.
    public static let rowLimit = 1_000
}
