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
    "PostgreSQL schema version 4: cutoffs and devices on a version 3 database",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresCutoffMigrationTests {
    @Test("sessions keep working with a public id and generation 0; a previous build's sign-in still works meanwhile")
    func upgradeFromVersion3() async throws {
        try await PostgresTestDatabase.with { url in
            let appID = UUID()
            let live: [UInt8] = Array(repeating: 7, count: 40)
            try await makePostgresDatabase(at: url, asVersion: 3) { db in
                try await db.execute(
                    "INSERT INTO apps (id, name, session_ttl_seconds, created_at) VALUES (\(appID), 'App', 3600, \(t0))")
                try await db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at) VALUES (\(appID), 'u', \(t0), \(t0))")
                try await db.execute(
                    """
                    INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at)
                    VALUES (\(live.bytea), \(appID), 'u', \(t0), \(t0 + 3600))
                    """)
            }

            try await PostgresStore.open(url: url, options: testOptions) { store in
                let found = try #require(try await store.sessionLookup(tokenHash: live))
                #expect(found.standing(at: t0 + 5) == .live)
                #expect(found.session.generations == SessionGenerations())
                #expect(found.session.lastSeenAt == t0)
                #expect(try await store.sessionLookup(sessionID: found.session.sessionID)?.session.tokenHash == live)
                #expect(try await store.cutOff(.app(appID), reason: "upgrade", now: t0 + 6).sessionsEnded == 1)
                #expect(try await store.sessionLookup(tokenHash: live)?.standing(at: t0 + 6) == .cutOff(.app, reason: "upgrade"))
                // The previous build's sign-in (`vouch_create_session`, no public id sent) still
                // works during a rolling upgrade: the id comes from the column's default.
                let old: [UInt8] = Array(repeating: 9, count: 40)
                try await store.single("old sign-in") { db in
                    try await db.execute(
                        """
                        SELECT * FROM vouch_create_session(\(Array(repeating: UInt8(1), count: 32).bytea), \(t0 + 600),
                            NULL, NULL, NULL, \(appID), 'u', NULL, NULL, NULL, NULL, \(old.bytea), \(t0 + 7), \(t0 + 3600),
                            NULL, 60)
                        """)
                }
                let oldSession = try #require(try await store.sessionLookup(tokenHash: old))
                #expect(oldSession.standing(at: t0 + 8) == .cutOff(.app, reason: "upgrade"), "it recorded generation 0")
            }
        }
    }
}
