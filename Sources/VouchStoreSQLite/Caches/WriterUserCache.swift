import Foundation
import Synchronization
import VouchSupport
import VouchStore

/// The users' rows as the writer's transactions last read or wrote them, so that a returning
/// user's sign-in writes its session without first reading the user's row (the transaction's one
/// read: two B-tree seeks and a row of strings decoded; docs/PERFORMANCE.md, "The durable write").
///
/// Unlike `SessionCache`, this one lives *inside* the transactions: it is read and changed only
/// by code that runs on the writer connection within a write (`SQLiteStore.transaction` and
/// `exclusive`), and those run one at a time, in the order of their statements. So an entry is
/// exactly the row as the writer sees it now, uncommitted writes of the same group included,
/// provided that three things hold, and the store holds them:
///
/// - every write that can change a user's row drops it inside its own transaction, before
///   anything after it reads (the store does that for every write from its `CacheInvalidation`,
///   `.user` or `.everything`, before the write's body runs);
/// - an entry is kept only by a write whose statements all succeeded, as its last step;
/// - when a transaction is rolled back, everything is dropped (`SQLiteWorker`'s `afterRollback`):
///   entries kept by a group that did not commit may describe rows that no longer exist.
///
/// No other process writes the file (`SQLiteFileLock`). Should an entry ever claim a user whose
/// row is missing, the session's foreign key still refuses the insert: a failed sign-in, never
/// a session without its user.
///
/// Two generations of at most `capacity` users each bound the memory (`TwoGenerations`, as the
/// rate limiter's clients): forgetting costs nothing a sign-in, and a user who keeps signing in
/// stays.
final class WriterUserCache: Sendable {
    /// The most users in one generation; 0 keeps nothing.
    let capacity: Int
    private let users: Mutex<TwoGenerations<Key, UserRecord>>

    init(capacity: Int) {
        self.capacity = capacity
        self.users = Mutex(TwoGenerations(generationSize: self.capacity))
    }

    private struct Key: Hashable {
        let appID: UUID
        let userID: String
    }

    /// Users kept right now, in both generations (for tests).
    var count: Int { users.withLock { $0.count } }

    /// The user's row as the writer last saw it, or nil when it is not kept (read the row).
    func user(appID: UUID, userID: String) -> UserRecord? {
        guard capacity > 0 else { return nil }
        // A generation let go is freed after the lock, not under it.
        let (found, _) = users.withLock { $0.value(for: Key(appID: appID, userID: userID)) }
        return found
    }

    /// Keeps `user` as its row now stands in the writer's transaction.
    func keep(_ user: UserRecord) {
        guard capacity > 0 else { return }
        _ = users.withLock { $0.set(user, for: Key(appID: user.appID, userID: user.userID)) }
    }

    /// Drops what a write can change of the users' rows: its user, or everyone.
    func forget(_ invalidation: CacheInvalidation) {
        switch invalidation {
        case .none, .session, .sessions:
            return
        case .user(let appID, let userID):
            guard capacity > 0 else { return }
            users.withLock { $0.removeValue(forKey: Key(appID: appID, userID: userID)) }
        case .everything:
            forgetAll()
        }
    }

    /// Drops every user (a rolled-back transaction, or a write that can change anything).
    func forgetAll() {
        guard capacity > 0 else { return }
        _ = users.withLock { $0.removeAll() }
    }
}

extension WriterUserCache {
    /// Users in one generation unless told otherwise: a few hundred bytes each, so a few MB for
    /// both generations at most.
    static let defaultCapacity = 8_192
}
