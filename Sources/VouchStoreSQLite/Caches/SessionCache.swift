import Foundation
import Synchronization
import VouchStore

/// The answers of `sessionLookup` kept in memory between the writes that could change them, so
/// that an authenticated request reads no SQL while its session and user stay as they were.
///
/// It is safe because of where it lives. Every write to the file goes through this store's
/// writer, and no other process writes it (`SQLiteFileLock`): each write names what it can change
/// (`CacheInvalidation`) and drops it from here after it committed, before its caller is answered, so
/// a revocation or suspension is seen by the very next request, as `Store` promises. An answer
/// read while a write was committing may be the old one: it is kept only if nothing was
/// invalidated since before it was read (`Ticket`), and otherwise served once and forgotten.
///
/// Only found sessions are kept (an unknown token costs the read every time, so made-up tokens
/// cannot fill the cache), and at most `capacity` of them: reaching it empties the cache, which
/// bounds memory without bookkeeping on the hot path.
final class SessionCache: Sendable {
    /// Proof of when a read began: what it read is kept only if no invalidation came since.
    struct Ticket: Sendable {
        fileprivate let generation: UInt64
    }

    /// The most sessions kept; 0 turns the cache off.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    private struct UserKey: Hashable {
        let appID: UUID
        let userID: String
    }

    private struct State: ~Copyable {
        var generation: UInt64 = 0
        var entries: [[UInt8]: SessionLookup] = [:]
        /// The cached token hashes of each user, to drop them with the user.
        var tokenHashesByUser: [UserKey: [[UInt8]]] = [:]
        /// The token hash of each kept session by its public id (introspecting an access token
        /// knows only the id); exactly the sessions `entries` holds.
        var tokenHashesBySessionID: [UUID: [UInt8]] = [:]

        mutating func removeAll() {
            entries.removeAll(keepingCapacity: true)
            tokenHashesByUser.removeAll(keepingCapacity: true)
            tokenHashesBySessionID.removeAll(keepingCapacity: true)
        }

        mutating func remove(tokenHash: [UInt8]) {
            guard let entry = entries.removeValue(forKey: tokenHash) else { return }
            tokenHashesBySessionID[entry.session.sessionID] = nil
            let key = UserKey(appID: entry.session.appID, userID: entry.session.userID)
            tokenHashesByUser[key]?.removeAll { $0 == tokenHash }
            if tokenHashesByUser[key]?.isEmpty == true { tokenHashesByUser[key] = nil }
        }

        mutating func remove(user key: UserKey) {
            guard let hashes = tokenHashesByUser.removeValue(forKey: key) else { return }
            for hash in hashes {
                if let entry = entries.removeValue(forKey: hash) { tokenHashesBySessionID[entry.session.sessionID] = nil }
            }
        }
    }

    /// How many sessions are kept now.
    var count: Int { state.withLock { $0.entries.count } }

    /// The kept answer for this token hash, if any.
    func answer(tokenHash: [UInt8]) -> SessionLookup? {
        guard capacity > 0 else { return nil }
        return state.withLock { state in state.entries[tokenHash] }
    }

    /// The kept answer for the session with this public id, if any.
    func answer(sessionID: UUID) -> SessionLookup? {
        guard capacity > 0 else { return nil }
        return state.withLock { state in state.tokenHashesBySessionID[sessionID].flatMap { state.entries[$0] } }
    }

    /// Taken before a read whose answer may be kept.
    func ticket() -> Ticket {
        state.withLock { Ticket(generation: $0.generation) }
    }

    /// Keeps `answer` unless something was invalidated since `ticket` was taken (the answer may
    /// then predate that write).
    func keep(_ answer: SessionLookup, tokenHash: [UInt8], since ticket: Ticket) {
        guard capacity > 0 else { return }
        state.withLock { state in
            guard state.generation == ticket.generation else { return }
            if state.entries[tokenHash] == nil {
                if state.entries.count >= capacity { state.removeAll() }
                let key = UserKey(appID: answer.session.appID, userID: answer.session.userID)
                state.tokenHashesByUser[key, default: []].append(tokenHash)
                state.tokenHashesBySessionID[answer.session.sessionID] = tokenHash
            }
            state.entries[tokenHash] = answer
        }
    }

    /// Drops what a committed write may have changed; called before the write's caller is answered.
    func invalidate(_ invalidation: CacheInvalidation) {
        if invalidation == .none { return }
        state.withLock { state in
            state.generation &+= 1
            switch invalidation {
            case .none: break
            case .session(let tokenHash): state.remove(tokenHash: tokenHash)
            case .user(let appID, let userID): state.remove(user: UserKey(appID: appID, userID: userID))
            case .sessions, .everything: state.removeAll()
            }
        }
    }
}
