import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// A user's sessions are found through the expiry index (schema version 5), not an index by user:
/// these tests pin the index's shape and the statements' plans, and show a database of version 4
/// keeping every answer across the upgrade. What the answers are is the conformance suite's.
@Suite("a user's sessions, found through the expiry index")
struct UserSessionsTests {
    @Test("the sessions' indexes: by expiry then key (carrying the user), and by public id; no index by user")
    func indexShape() async throws {
        try await withTemporaryDirectory { directory in
            try await withSQLiteStore(at: directory.file("vouch.sqlite")) { store in
                let (indexes, columns) = try await store.exclusive("indexes") { db in
                    let indexes = try db.rows(
                        "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'sessions' ORDER BY name"
                    ).map { try $0.text("name") }
                    let columns = try db.rows("PRAGMA index_info(sessions_by_expiry_and_user)").map { try $0.text("name") }
                    return (indexes, columns)
                }
                // Ordered by expiry alone, or by expiry and then the user, entries made in the
                // same second would land at random among that second's; the key keeps them in
                // the order they were made.
                // The public id's index appends too: the id leads with its millisecond.
                #expect(indexes == ["sessions_by_expiry_and_user", "sessions_by_session_id"])
                #expect(columns == ["expires_at", "token_hash", "app_id", "user_id"])
            }
        }
    }

    @Test("counting, ending and naming a user's sessions search the expiry index from now on, never the whole table")
    func plans() async throws {
        try await withTemporaryDirectory { directory in
            try await withSQLiteStore(at: directory.file("vouch.sqlite")) { store in
                let statements: [(String, [SQLiteData])] = [
                    (UserSessionStatements.endLive, [.uuid(UUID()), .text("u"), .int64(t0), .text("revoked")])
                ]
                for (sql, binds) in statements {
                    let plan = try await store.exclusive("plan") { db in
                        try db.rows("EXPLAIN QUERY PLAN " + sql, binds).map { try $0.text("detail") }
                    }
                    #expect(plan == ["SEARCH sessions USING INDEX sessions_by_expiry_and_user (expires_at>?)"], "\(sql)")
                }
                // The ids a suspension ended: the same search from its second on (sorted by the caller).
                let named = try await store.exclusive("plan") { db in
                    try db.rows(
                        "EXPLAIN QUERY PLAN " + UserSessionStatements.endedAt, [.uuid(UUID()), .text("u"), .int64(t0), .text("user_suspended")]
                    ).map { try $0.text("detail") }
                }
                #expect(named == ["SEARCH sessions USING INDEX sessions_by_expiry_and_user (expires_at>?)"], "\(named)")
                // The count and the listing: the same search, then each found session's objects by their keys.
                for sql in [UserSessionStatements.countLive, UserSessionStatements.listLive] {
                    let plan = try await store.exclusive("plan") { db in
                        try db.rows("EXPLAIN QUERY PLAN " + sql, [.uuid(UUID()), .text("u"), .int64(t0)]).map { try $0.text("detail") }
                    }
                    #expect(plan.first == "SEARCH s USING INDEX sessions_by_expiry_and_user (expires_at>?)", "\(plan)")
                    #expect(
                        plan.dropFirst().allSatisfy { $0.contains("USING INDEX sqlite_autoindex_") || $0 == "USE TEMP B-TREE FOR ORDER BY" },
                        "\(plan)")
                }
            }
        }
    }

    @Test("counting a user's sessions, which reads every live session, runs on the queued reader, not inline on the caller's thread")
    func countOffThePool() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            _ = try await store.createSession(newSession(app: app.id, user: "u"))
            // An ordinary read runs inline and leaves the queued reader unopened...
            #expect(try await store.user(appID: app.id, userID: "u") != nil)
            #expect(store.readers.isOpen == false)
            // ...the count opens it and runs there.
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 1)
            #expect(store.readers.isOpen)
        }
    }

    @Test("version 5 keeps a version 4 database's sessions: the same user's live ones are counted and ended, nobody else's")
    func upgradeFromVersion4() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let live = [randomBytes(40), randomBytes(40)], expired = randomBytes(40), ended = randomBytes(40)
            let bystander = randomBytes(40)
            // A database as version 4 left it, with its index by user.
            try makeDatabase(at: path, asVersion: 4, app: app) { db in
                for user in ["u", "v"] {
                    try db.execute(
                        "INSERT INTO users (app_id, user_id, created_at, updated_at) VALUES (?, ?, ?, ?)",
                        [.uuid(app.id), .text(user), .int64(t0), .int64(t0)])
                }
                func insert(_ token: [UInt8], _ user: String, expiresAt: Int64, endedAt: Int64? = nil) throws {
                    try db.execute(
                        "INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at, ended_at, end_reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [
                            .bytes(token), .uuid(app.id), .text(user), .int64(t0 - 100), .int64(expiresAt),
                            endedAt.map { .int64($0) } ?? .null, endedAt == nil ? .null : .text("revoked"),
                        ])
                }
                for token in live { try insert(token, "u", expiresAt: t0 + 3600) }
                try insert(expired, "u", expiresAt: t0 - 1)
                try insert(ended, "u", expiresAt: t0 + 3600, endedAt: t0 - 50)
                try insert(bystander, "v", expiresAt: t0 + 3600)
                #expect(try db.rows("SELECT name FROM sqlite_schema WHERE name = 'sessions_by_user'").count == 1)
            }

            try await withSQLiteStore(at: path) { store async throws in
                #expect(try await store.appliedMigrations().map(\.version) == SQLiteMigrations.all.map(\.version))
                #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 2)
                #expect(try await store.revokeSessions(appID: app.id, userID: "u", now: t0) == 2)
                for token in live {
                    #expect(try await store.session(tokenHash: token)?.endedAt == t0)
                }
                #expect(try await store.session(tokenHash: expired)?.endedAt == nil)
                #expect(try await store.session(tokenHash: ended)?.endedAt == t0 - 50)
                #expect(try await store.session(tokenHash: bystander)?.endedAt == nil)
                #expect(try await store.activeSessionCount(appID: app.id, userID: "v", now: t0) == 1)
                // The purge still finds the expired session by its expiry.
                #expect(try await store.purgeExpired(now: t0 + 1, sessionGraceSeconds: 0).total == 1)
                #expect(try await store.session(tokenHash: expired) == nil)
            }
        }
    }
}
