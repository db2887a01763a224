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
    .timeLimit(.minutes(2)))
struct PostgresCutoffMigrationTests {
    @Test("sessions keep working with a public id and generation 0; a previous build's sign-in still works meanwhile")
    func upgradeFromVersion3() async throws {
        try await PostgresTestDatabase.with { url in
            let appID = UUID()
            let live: [UInt8] = Array(repeating: 7, count: 40)
            let logger = Logger(label: "vouch.tests.postgres-migration")
            let connection = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(),
                configuration: PostgresConnection.Configuration(
                    host: url.host, port: url.port, username: url.username, password: url.password,
                    database: url.database, tls: .disable),
                id: 1, logger: logger)
            do {
                let db = PostgresRunner(connection: connection, logger: logger)
                _ = try await PostgresMigrations.apply(
                    Array(PostgresMigrations.all.prefix { $0.version <= 3 }), on: db, now: t0, lockTimeout: .seconds(30))
                try await db.execute(
                    "INSERT INTO apps (id, name, session_ttl_seconds, created_at) VALUES (\(appID), 'App', 3600, \(t0))")
                try await db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at) VALUES (\(appID), 'u', \(t0), \(t0))")
                try await db.execute(
                    """
                    INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at)
                    VALUES (\(live.bytea), \(appID), 'u', \(t0), \(t0 + 3600))
                    """)
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()

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
