import Dispatch
import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// The writer's users may spare a sign-in the read of its user's row only while they say exactly
/// what the writer's transaction would read: a suspension drops the user inside its own
/// transaction, and a group that is rolled back drops everyone it kept.
@Suite("Writer's users", .serialized, .timeLimit(.minutes(1)))
struct WriterUserCacheTests {
    private static let userSelect = "SELECT * FROM users WHERE app_id = ? AND user_id = ?"

    /// How many times the writer has run the transaction's read of a user's row.
    private static func userReads(_ store: SQLiteStore) async throws -> Int {
        try await store.worker.run { $0.handle.statementRuns[userSelect] ?? 0 }
    }

    private struct FailedAfterWriting: Error {}

    /// Signs `user` in twice and checks that the user is kept. The first sign-in writes the new
    /// user's row, after which the store drops that user from the caches that keep answers
    /// (`invalidate`); the second changes nothing and drops nothing. Were the writer's users
    /// dropped there too, after the commit, the first sign-in's own drop would hide it.
    private static func keptUser(_ store: SQLiteStore, app: UUID, _ user: String) async throws {
        _ = try await store.createSession(newSession(app: app, user: user))
        _ = try await store.createSession(newSession(app: app, user: user))
        #expect(store.writerUsers.user(appID: app, userID: user)?.suspended == false)
    }

    @Test("a returning user's sign-in reads no user row; a new user's, and a changed profile's, write it and keep it")
    func returningUserReadsNoRow() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            _ = try await store.createSession(newSession(app: app.id, user: "alice"))
            let afterFirst = try await Self.userReads(store)
            #expect(afterFirst >= 1, "the first sign-in reads the row it does not know")
            #expect(store.writerUsers.user(appID: app.id, userID: "alice") != nil)

            _ = try await store.createSession(newSession(app: app.id, user: "alice"))
            _ = try await store.createSession(newSession(app: app.id, user: "alice"))
            #expect(try await Self.userReads(store) == afterFirst, "a returning user's row was read again")

            // A changed profile is written, and what is kept is the row as written.
            let renamed = try await store.createSession(
                newSession(
                    app: app.id, user: "alice", profile: IdentityProfile(displayName: "Alice")))
            #expect(renamed.profile.displayName == "Alice")
            #expect(store.writerUsers.user(appID: app.id, userID: "alice")?.profile.displayName == "Alice")
            let again = try await store.createSession(newSession(app: app.id, user: "alice"))
            #expect(again.profile.displayName == "Alice", "a later sign-in without the claim keeps the name")
            #expect(try await store.user(appID: app.id, userID: "alice") == again)
        }
    }

    @Test("a suspension refuses the next sign-in of a kept user, and a lifted one admits it")
    func suspensionDropsTheUser() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            try await Self.keptUser(store, app: app.id, "bob")

            _ = try await store.setSuspended(appID: app.id, userID: "bob", suspended: true, now: t0)
            await #expect(throws: StoreError.userSuspended) {
                _ = try await store.createSession(newSession(app: app.id, user: "bob"))
            }
            _ = try await store.setSuspended(appID: app.id, userID: "bob", suspended: false, now: t0)
            let user = try await store.createSession(newSession(app: app.id, user: "bob"))
            #expect(user.suspended == false)
        }
    }

    /// The suspension and the sign-in after it in one group: only dropping the user inside the
    /// suspension's transaction (not after its commit) keeps the sign-in from the old row.
    @Test("a sign-in committed in the same group as the suspension before it is refused")
    func suspensionInTheSameGroup() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            try await Self.keptUser(store, app: app.id, "carol")
            let worker = store.worker
            let groupsBefore = worker.committedGroups

            let gate = DispatchSemaphore(value: 0)
            let held = try await holdQueue(worker, until: gate)
            let suspension = Task { try await store.setSuspended(appID: app.id, userID: "carol", suspended: true, now: t0) }
            try await waitUntilWaiting(worker, 1)
            let signIn = Task { try await store.createSession(newSession(app: app.id, user: "carol")) }
            try await waitUntilWaiting(worker, 2)
            gate.signal()
            try await held.value

            #expect(try await suspension.value.suspended == true)
            await #expect(throws: StoreError.userSuspended) { _ = try await signIn.value }
            #expect(worker.committedGroups == groupsBefore + 1, "the two were committed as one group")
        }
    }

    /// A new user's sign-in keeps the row it inserted; a later write of the same group fails after
    /// writing, so the group is rolled back and run again, each write in a savepoint. Run again,
    /// the sign-in must insert its user anew: a kept row from the rolled-back run would skip the
    /// insert, and the session's foreign key would refuse it.
    @Test("a group rolled back forgets the users it kept, and its sign-ins still succeed")
    func rollbackForgetsKeptUsers() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            try await store.exclusive("setup") { db in try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT") }
            let worker = store.worker

            let gate = DispatchSemaphore(value: 0)
            let held = try await holdQueue(worker, until: gate)
            let session = newSession(app: app.id, user: "dave")
            let signIn = Task { try await store.createSession(session) }
            try await waitUntilWaiting(worker, 1)
            // `.none`: a write that says it changes no user, so only the rollback can drop "dave".
            let failing = Task {
                try await store.transaction("fails after writing", invalidating: .none) { db in
                    try db.execute("INSERT INTO t (x) VALUES (1)")
                    throw FailedAfterWriting()
                }
            }
            try await waitUntilWaiting(worker, 2)
            gate.signal()
            try await held.value

            // The store maps what a body throws to its own errors.
            await #expect(throws: StoreError.self) { try await failing.value }
            #expect(try await signIn.value.userID == "dave")
            #expect(try await store.user(appID: app.id, userID: "dave") != nil)
            #expect(try await store.session(tokenHash: session.tokenHash) != nil)
            let rows = try await store.exclusive("count", invalidating: .none) { db in
                try db.rows("SELECT count(*) AS n FROM t").first?.int64("n")
            }
            #expect(rows == 0, "the failed write left nothing")
        }
    }

    @Test("the purge of expired rows keeps the writer's users and the sign-ins' catalogue rows")
    func purgeKeepsUsers() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            try await Self.keptUser(store, app: app.id, "erin")
            _ = try await store.signInFacts(SignInFactsQuery(appID: app.id, now: t0, includesApp: true))
            let catalogueRows = store.catalogueCache.count
            #expect(catalogueRows >= 1)

            #expect(try await store.purgeExpired(now: t0 + 7200, sessionGraceSeconds: 0).total >= 2)
            #expect(store.writerUsers.user(appID: app.id, userID: "erin") != nil)
            #expect(store.catalogueCache.count == catalogueRows)
        }
    }

    @Test("two generations bound the users kept; a user looked up again stays")
    func bounded() {
        let cache = WriterUserCache(capacity: 4)
        let app = UUID()
        func user(_ name: String) -> UserRecord {
            UserRecord(appID: app, userID: name, profile: IdentityProfile(), suspended: false)
        }
        cache.keep(user("regular"))
        for index in 0..<100 {
            cache.keep(user("u\(index)"))
            #expect(cache.user(appID: app, userID: "regular") != nil, "forgotten after \(index) newcomers")
            #expect(cache.count <= 8)
        }
        #expect(cache.user(appID: app, userID: "u0") == nil, "the oldest newcomer is forgotten")

        cache.forget(.user(appID: app, userID: "regular"))
        #expect(cache.user(appID: app, userID: "regular") == nil)
        cache.forget(.session(tokenHash: [1, 2, 3]))
        #expect(cache.user(appID: app, userID: "u99") != nil, "a session's end changes no user")
        cache.forget(.everything)
        #expect(cache.count == 0)

        let off = WriterUserCache(capacity: 0)
        off.keep(user("x"))
        #expect(off.user(appID: app, userID: "x") == nil && off.count == 0)
    }
}
