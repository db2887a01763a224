import Foundation
import Synchronization
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// The session cache may answer an authenticated request only with what the file says: every
/// write that changes a kept answer drops it before it returns, a read that raced a write is not
/// kept, and no other store can write the file behind the cache's back.
@Suite("Session cache", .timeLimit(.minutes(5)))
struct SessionCacheTests {
    /// A session of `user`, read once through `sessionLookup` so that it is kept.
    static func keptSession(
        _ store: SQLiteStore, app: UUID, user: String,
        profile: IdentityProfile = IdentityProfile()
    ) async throws -> [UInt8] {
        let session = newSession(app: app, user: user, profile: profile)
        _ = try await store.createSession(session)
        #expect(try await store.sessionLookup(tokenHash: session.tokenHash)?.session.userID == user)
        #expect(store.sessionCache.answer(tokenHash: session.tokenHash) != nil, "kept after its first read")
        return session.tokenHash
    }

    @Test("a kept session is answered from memory: a row deleted behind the store's back is still answered")
    func answeredFromMemory() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await withSQLiteStore(at: path) { store in
                let app = try await store.addApp()
                let token = try await Self.keptSession(store, app: app.id, user: "alice")
                // Another connection, not the store: exactly what the file lock keeps out.
                try withOutsideConnection(to: path) { outsider in
                    _ = try outsider.rows("DELETE FROM sessions WHERE token_hash = ?", [.bytes(token)])
                }
                #expect(try await store.sessionLookup(tokenHash: token)?.session.userID == "alice")
                #expect(try await store.session(tokenHash: token) == nil, "the file no longer has it")
            }
        }
    }

    @Test("ending one session is seen by the next look-up, and the user's other sessions stay kept")
    func revokeOne() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let first = try await Self.keptSession(store, app: app.id, user: "alice")
            let second = try await Self.keptSession(store, app: app.id, user: "alice")
            try await store.revokeSession(tokenHash: first, now: t0 + 1)
            let ended = try #require(try await store.sessionLookup(tokenHash: first))
            #expect(ended.session.endedAt == t0 + 1)
            #expect(ended.session.endReason == .revoked)
            #expect(store.sessionCache.answer(tokenHash: second)?.session.endedAt == nil)
        }
    }

    @Test("a look-up by public id is answered from memory, and sees an ending of the session or its user at once")
    func lookupBySessionID() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await withSQLiteStore(at: path) { store in
                let app = try await store.addApp()
                let token = try await Self.keptSession(store, app: app.id, user: "alice")
                let other = try await Self.keptSession(store, app: app.id, user: "alice")
                let sessionID = try #require(store.sessionCache.answer(tokenHash: token)?.session.sessionID)
                let otherID = try #require(store.sessionCache.answer(tokenHash: other)?.session.sessionID)
                #expect(store.sessionCache.answer(sessionID: sessionID)?.session.tokenHash == token)
                try withOutsideConnection(to: path) { outsider in
                    _ = try outsider.rows("UPDATE sessions SET session_id = randomblob(16) WHERE token_hash = ?", [.bytes(token)])
                }
                #expect(try await store.sessionLookup(sessionID: sessionID)?.session.tokenHash == token, "read from memory")

                try await store.revokeSession(tokenHash: token, now: t0 + 1)
                #expect(store.sessionCache.answer(sessionID: sessionID) == nil)
                #expect(try await store.sessionLookup(sessionID: sessionID) == nil, "read from the file, where the id changed")
                #expect(try await store.sessionLookup(sessionID: otherID)?.session.endedAt == nil)
                _ = try await store.setSuspended(appID: app.id, userID: "alice", suspended: true, now: t0 + 2)
                #expect(store.sessionCache.answer(sessionID: otherID) == nil)
                #expect(try await store.sessionLookup(sessionID: otherID)?.user?.suspended == true)
            }
        }
    }

    @Test("ending every session of a user, or suspending them, is seen by the next look-up of each")
    func revokeAllAndSuspend() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let alice = [
                try await Self.keptSession(store, app: app.id, user: "alice"),
                try await Self.keptSession(store, app: app.id, user: "alice"),
            ]
            let bob = try await Self.keptSession(store, app: app.id, user: "bob")
            #expect(try await store.revokeSessions(appID: app.id, userID: "alice", now: t0 + 1) == 2)
            for token in alice {
                #expect(try await store.sessionLookup(tokenHash: token)?.session.endReason == .revoked)
            }
            #expect(store.sessionCache.answer(tokenHash: bob) != nil, "another user's session stays kept")

            _ = try await store.setSuspended(appID: app.id, userID: "bob", suspended: true, now: t0 + 2)
            let suspended = try #require(try await store.sessionLookup(tokenHash: bob))
            #expect(suspended.user?.suspended == true)
            #expect(suspended.session.endReason == .userSuspended)
        }
    }

    @Test("a sign-in that changes the user's profile is seen by the look-up of their earlier session")
    func profileChange() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let token = try await Self.keptSession(
                store, app: app.id, user: "alice",
                profile: IdentityProfile(displayName: "Alice"))
            _ = try await store.createSession(
                newSession(
                    app: app.id, user: "alice",
                    profile: IdentityProfile(displayName: "Alice Liddell")))
            #expect(try await store.sessionLookup(tokenHash: token)?.user?.profile.displayName == "Alice Liddell")
        }
    }

    @Test("a returning user's sign-in that changes nothing keeps their sessions, and a read that raced it is kept")
    func unchangedSignInKeeps() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let profile = IdentityProfile(displayName: "Alice")
            let token = try await Self.keptSession(store, app: app.id, user: "alice", profile: profile)
            let ticket = store.sessionCache.ticket()
            _ = try await store.createSession(newSession(app: app.id, user: "alice", profile: profile))
            #expect(store.sessionCache.answer(tokenHash: token) != nil, "the user's row was not written")
            // A sign-in storm of returning users must not turn away every read that overlaps it.
            let session = SessionRecord(tokenHash: [9], appID: app.id, userID: "bob", createdAt: t0, expiresAt: t0 + 60)
            store.sessionCache.keep(SessionLookup(session: session, user: nil), tokenHash: [9], since: ticket)
            #expect(store.sessionCache.answer(tokenHash: [9]) != nil)
        }
    }

    @Test("a purged session is unknown at once, as the file says")
    func purge() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let token = try await Self.keptSession(store, app: app.id, user: "alice")
            #expect(try await store.purgeExpired(now: t0 + 7200, sessionGraceSeconds: 60).total >= 1)
            #expect(try await store.sessionLookup(tokenHash: token) == nil)
        }
    }

    @Test("writes that change no kept answer keep the cache (the audit log, another user's sign-in, an unknown session's end); any other write empties it")
    func unrelatedWritesKeep() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let token = try await Self.keptSession(store, app: app.id, user: "alice")
            try await store.appendAudit([NewAuditEntry(at: t0, kind: .admin, actor: "api", action: "app.create", outcome: "ok")])
            _ = try await store.createSession(newSession(app: app.id, user: "bob"))
            try await store.revokeSession(tokenHash: randomBytes(), now: t0)
            #expect(store.sessionCache.answer(tokenHash: token) != nil)
            // Any other write drops everything: the safe default for a write that says nothing.
            _ = try await store.updateApp(id: app.id, name: "Renamed", sessionTTLSeconds: nil)
            #expect(store.sessionCache.count == 0)
        }
    }

    @Test("a read that began before an invalidation is not kept: it may hold what the write changed")
    func ticketRefusesReadsThatRacedAWrite() throws {
        let cache = SessionCache(capacity: 8)
        let session = SessionRecord(tokenHash: [1], appID: UUID(), userID: "alice", createdAt: t0, expiresAt: t0 + 60)
        let before = cache.ticket()
        cache.invalidate(.session(tokenHash: [2]))
        cache.keep(SessionLookup(session: session, user: nil), tokenHash: [1], since: before)
        #expect(cache.answer(tokenHash: [1]) == nil)
        cache.keep(SessionLookup(session: session, user: nil), tokenHash: [1], since: cache.ticket())
        #expect(cache.answer(tokenHash: [1])?.session == session)
        // A write that changes nothing kept does not refuse a read in flight.
        let during = cache.ticket()
        cache.invalidate(.none)
        cache.keep(SessionLookup(session: session, user: nil), tokenHash: [3], since: during)
        #expect(cache.answer(tokenHash: [3]) != nil)
    }

    /// The whole path under contention; the window it probes is narrow, so that a read which raced
    /// a write is refused is held by the ticket test above, which fails without the check.
    @Test("look-ups racing a revocation: once it returned, no look-up answers the session as live")
    func revocationRacingReads() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            for round in 0..<100 {
                let token = try await Self.keptSession(store, app: app.id, user: "user-\(round)")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    let stop = ManagedAtomicFlag()
                    for _ in 0..<3 {
                        group.addTask {
                            // A kept answer returns without suspending: pause between reads, or
                            // these three would hold the concurrency pool's threads and starve the
                            // revocation (and every other test running beside this one).
                            while !stop.isSet {
                                _ = try await store.sessionLookup(tokenHash: token)
                                try await Task.sleep(for: .microseconds(100))
                            }
                        }
                    }
                    try await store.revokeSession(tokenHash: token, now: t0 + 1)
                    #expect(try await store.sessionLookup(tokenHash: token)?.session.endedAt != nil)
                    stop.set()
                    try await group.waitForAll()
                }
                // Every read that was in flight has finished: none may have kept the live session.
                #expect(try await store.sessionLookup(tokenHash: token)?.session.endedAt != nil, "round \(round)")
            }
        }
    }

    @Test("memory is bounded: reaching the capacity empties the cache, and 0 keeps nothing")
    func capacity() async throws {
        let cache = SessionCache(capacity: 4)
        for index in 0..<10 {
            let session = SessionRecord(
                tokenHash: [UInt8(index)], appID: UUID(), userID: "u\(index)",
                createdAt: t0, expiresAt: t0 + 60)
            cache.keep(SessionLookup(session: session, user: nil), tokenHash: [UInt8(index)], since: cache.ticket())
            #expect(cache.count <= 4)
        }
        #expect(cache.answer(tokenHash: [9]) != nil, "the newest is kept")
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(path: directory.file("vouch.sqlite"), configuration: .init(sessionCacheCapacity: 0))
            try await closing(store) { store in
                let app = try await store.addApp()
                let session = newSession(app: app.id, user: "alice")
                _ = try await store.createSession(session)
                #expect(try await store.sessionLookup(tokenHash: session.tokenHash)?.session.userID == "alice")
                #expect(store.sessionCache.count == 0)
            }
        }
    }
}

/// A flag set once by one task and read by others.
private final class ManagedAtomicFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
