import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport

@testable import VouchStoreSQLite

@Suite("schema version 7: the log of endings, live tickets and the challenge margin on a version 6 database")
struct LiveChannelMigrationTests {
    @Test("apps get the default margin, sessions keep working and their endings are logged from position 1")
    func upgradeFromVersion6() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let live = randomBytes(40)
            let sessionID = UUID()
            try makeDatabase(at: path, asVersion: 6, app: app) { db in
                try db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at) VALUES (?, 'u', ?, ?)",
                    [.uuid(app.id), .int64(t0), .int64(t0)])
                try db.execute(
                    """
                    INSERT INTO sessions (token_hash, session_id, app_id, user_id, created_at, expires_at, last_seen_at)
                    VALUES (?, ?, ?, 'u', ?, ?, ?)
                    """,
                    [.bytes(live), .uuidBytes(sessionID), .uuid(app.id), .int64(t0), .int64(t0 + 3600), .int64(t0)])
            }
            try await withSQLiteStore(at: path) { store async throws in
                #expect(try await store.app(id: app.id) == app, "the default margin")
                #expect(try await store.appliedMigrations().map(\.version) == SQLiteMigrations.all.map(\.version))
                #expect(try await store.sessionEndings(after: 0, limit: 10).latestPosition == 0)
                #expect(try await store.sessionLookup(tokenHash: live)?.standing(at: t0 + 5) == .live)
                #expect(try await store.revokeSession(tokenHash: live, now: t0 + 5))
                let page = try await store.sessionEndings(after: 0, limit: 10)
                #expect(
                    page.entries == [SessionEnding(position: 1, at: t0 + 5, kind: .revoked, scope: .session(sessionID, appID: app.id, userID: "u"))])
                let ticket = LiveTicket(ticketHash: randomBytes(), sessionTokenHash: live, expiresAt: t0 + 30)
                try await store.createLiveTicket(ticket)
                #expect(try await store.consumeLiveTicket(hash: ticket.ticketHash, now: t0) == live)
                #expect(try await store.updateApp(id: app.id, changes: AppChanges(challengeMarginSeconds: 45)).challengeMarginSeconds == 45)
            }
        }
    }
}
