import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchPostgresTestSupport

@testable import VouchStorePostgres

@Suite(
    "PostgreSQL schema version 9: the outbox as a stream, a user's events by user, expiries told, on a version 8 database",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresSecurityEventStreamMigrationTests {
    @Test("an event and its pending delivery from before the upgrade are read, delivered and exported; new events follow it")
    func upgradeFromVersion8() async throws {
        try await PostgresTestDatabase.with { url in
            let appID = UUID()
            let endpointID = UUID()
            let eventID = UUID()
            try await makePostgresDatabase(at: url, asVersion: 8) { db in
                try await db.execute(
                    "INSERT INTO apps (id, name, session_ttl_seconds, created_at) VALUES (\(appID), 'App', 3600, \(t0))")
                try await db.execute(
                    """
                    INSERT INTO webhook_endpoints (id, app_id, url, events, secret, created_at, updated_at)
                    VALUES (\(endpointID), \(appID), 'https://hooks.example/vouch', 'session.created user.suspended', 'whsec_x', \(t0), \(t0))
                    """)
                try await db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at, event_sequence) VALUES (\(appID), 'ada', \(t0), \(t0), 1)")
                try await db.execute(
                    """
                    INSERT INTO security_events (id, app_id, user_id, user_sequence, kind, at, data)
                    VALUES (\(eventID), \(appID), 'ada', 1, 'session.created', \(t0), '{"session_id":"x"}')
                    """)
                try await db.execute(
                    """
                    INSERT INTO webhook_deliveries (endpoint_id, event_id, position, user_id, user_sequence, state, next_attempt_at)
                    SELECT \(endpointID), \(eventID), position, 'ada', 1, 'pending', \(t0 * 1_000) FROM security_events
                    """)
            }
            try await PostgresStore.open(url: url, options: testOptions) { store in
                #expect(try await store.appliedMigrations().map(\.version) == PostgresMigrations.all.map(\.version))
                // Read until it shows: another test's transaction anywhere in the cluster may hold
                // the horizon (`pg_snapshot_xmin`) back for a while.
                var old = try await store.securityEvents(appID: appID, after: .start, kinds: nil, limit: 10)
                let deadline = ContinuousClock.now + .seconds(20)
                while old.isEmpty, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                    old = try await store.securityEvents(appID: appID, after: .start, kinds: nil, limit: 10)
                }
                #expect(old.map(\.event.id) == [eventID], "it took the migration's transaction id")
                let oldCursor = try #require(old.first?.cursor)

                _ = try await store.setSuspended(appID: appID, userID: "ada", suspended: true, now: t0 + 5)
                let all = try await store.settledSecurityEvents(appID: appID, count: 2)
                #expect(all.map(\.kind) == [.sessionCreated, .userSuspended] && all.last?.userSequence == 2)
                let after = try await store.securityEvents(appID: appID, after: oldCursor, kinds: nil, limit: 10)
                #expect(after.map(\.event.kind) == [.userSuspended])
                #expect(try await store.userData(appID: appID, userID: "ada")?.events.map(\.id) == all.map(\.id))

                // The old delivery goes first; the suspension's waits behind it.
                let claimed = try await store.claimWebhookDeliveries(now: (t0 + 10) * 1_000, lease: 30_000, limit: 10)
                #expect(claimed.map(\.delivery.event.id) == [eventID])
                #expect(try await store.recordSessionExpiries(now: t0 + 10, limit: 10) == 0, "the count starts at the first run")
                // The replaced function writes an ending's event with nobody subscribed to it.
                _ = try await store.cutOff(.app(appID), reason: nil, now: t0 + 20)
                #expect(try await store.settledSecurityEvents(appID: appID, count: 3).last?.kind == .cutoffSet)
            }
        }
    }
}
