import Foundation

/// What a committed write can change of what the SQLite store keeps in memory (`SessionCache`,
/// `CatalogueCache`). Every write of the store states it; a write that does not gets
/// `.everything`, so that a new write is safe before anyone thinks about it.
enum CacheInvalidation: Sendable, Equatable {
    /// Nothing a cache holds (the audit log).
    case none
    /// One session: its end.
    case session(tokenHash: [UInt8])
    /// A user's row and every session of theirs: a profile change, a suspension, a revocation of
    /// all their sessions.
    case user(appID: UUID, userID: String)
    /// Every session, and nothing else that is kept: the purge of expired sessions and used
    /// nonces (no user's row, no catalogue row; a nonce's use is never kept).
    case sessions
    /// Anything: apps, providers, keys, secrets, sessions, users.
    case everything
}
