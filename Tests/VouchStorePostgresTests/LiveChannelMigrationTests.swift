import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
import VouchPostgresTestSupport

@testable import VouchStorePostgres

@Suite(
    "PostgreSQL schema version 5: the log of endings, live tickets and the challenge margin on a version 4 database",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresLiveChannelMigrationTests {
    @Test("apps get the default margin, sessions keep working and their endings are logged from position 1")
    func upgradeFromVersion4() async throws {
        try await PostgresTestDatabase.with { url in
            let appID = UUID()
            let sessionID = UUID()
            let live: [UInt8] = Array(repeating: 7, count: 40)
            try await makePostgresDatabase(at: url, asVersion: 4) { db in
                try await db.execute(
                    "INSERT INTO apps (id, name, session_ttl_seconds, created_at) VALUES (\(appID), 'App', 3600, \(t0))")
                try await db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at) VALUES (\(appID), 'u', \(t0), \(t0))")
                try await db.execute(
                    """
                    INSERT INTO sessions (token_hash, session_id, app_id, user_id, created_at, expires_at)
                    VALUES (\(live.bytea), \(sessionID), \(appID), 'u', \(t0), \(t0 + 3600))
                    """)
            }

            try await PostgresStore.open(url: url, options: testOptions) { store in
                #expect(
                    try await store.app(id: appID)
                        == AppRecord(id: appID, name: "App", sessionTTLSeconds: 3600, createdAt: t0, challengeMarginSeconds: 30))
                #expect(try await store.appliedMigrations().map(\.version) == PostgresMigrations.all.map(\.version))
                #expect(try await store.sessionEndings(after: 0, limit: 10).latestPosition == 0)
                #expect(try await store.sessionLookup(tokenHash: live)?.standing(at: t0 + 5) == .live)
                #expect(try await store.revokeSession(tokenHash: live, now: t0 + 5))
                let page = try await store.sessionEndings(after: 0, limit: 10)
                #expect(
                    page.entries == [SessionEnding(position: 1, at: t0 + 5, kind: .revoked, scope: .session(sessionID, appID: appID, userID: "u"))])
                let ticket = LiveTicket(ticketHash: randomBytes(), sessionTokenHash: live, expiresAt: t0 + 30)
                try await store.createLiveTicket(ticket)
                #expect(try await store.consumeLiveTicket(hash: ticket.ticketHash, now: t0) == live)
                #expect(try await store.updateApp(id: appID, changes: AppChanges(challengeMarginSeconds: 45)).challengeMarginSeconds == 45)
            }
        }
    }
}
