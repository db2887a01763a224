import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport

@testable import VouchStoreSQLite

@Suite("schema version 11: the outbox as a stream, a user's events by user, expiries told, on a version 10 database")
struct SecurityEventStreamMigrationTests {
    @Test("an event and its pending delivery from before the upgrade are read, delivered and exported; new events follow it")
    func upgradeFromVersion10() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let endpointID = UUID()
            let eventID = UUID()
            try makeDatabase(at: path, asVersion: 10, app: app) { db in
                try db.execute(
                    """
                    INSERT INTO webhook_endpoints (id, app_id, url, events, secret, created_at, updated_at)
                    VALUES (?, ?, 'https://hooks.example/vouch', 'session.created user.suspended', 'whsec_x', ?, ?)
                    """, [.uuid(endpointID), .uuid(app.id), .int64(t0), .int64(t0)])
                try db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at, event_sequence) VALUES (?, 'ada', ?, ?, 1)",
                    [.uuid(app.id), .int64(t0), .int64(t0)])
                try db.execute(
                    """
                    INSERT INTO security_events (id, app_id, user_id, user_sequence, kind, at, data)
                    VALUES (?, ?, 'ada', 1, 'session.created', ?, '{"session_id":"x"}')
                    """, [.uuid(eventID), .uuid(app.id), .int64(t0)])
                try db.execute(
                    """
                    INSERT INTO webhook_deliveries (endpoint_id, event_id, position, user_id, user_sequence, state, next_attempt_at)
                    VALUES (?, ?, 1, 'ada', 1, 'pending', ?)
                    """, [.uuid(endpointID), .uuid(eventID), .int64(t0 * 1_000)])
            }
            try await withSQLiteStore(at: path) { store async throws in
                #expect(try await store.appliedMigrations().map(\.version) == SQLiteMigrations.all.map(\.version))
                let old = try await store.securityEvents(appID: app.id, after: .start, kinds: nil, limit: 10)
                #expect(old.map(\.event.id) == [eventID])
                #expect(try await store.securityEventCursor(appID: app.id, since: t0) == .start)

                _ = try await store.setSuspended(appID: app.id, userID: "ada", suspended: true, now: t0 + 5)
                let after = try await store.securityEvents(appID: app.id, after: old[0].cursor, kinds: nil, limit: 10)
                #expect(after.map(\.event.kind) == [.userSuspended] && after.first?.event.userSequence == 2)
                #expect(try await store.userData(appID: app.id, userID: "ada")?.events.map(\.id) == [eventID, after[0].event.id])

                // The old delivery goes first; the suspension's waits behind it.
                let claimed = try await store.claimWebhookDeliveries(now: (t0 + 10) * 1_000, lease: 30_000, limit: 10)
                #expect(claimed.map(\.delivery.event.id) == [eventID])
                #expect(try await store.recordSessionExpiries(now: t0 + 10, limit: 10) == 0, "the count starts at the first run")
            }
        }
    }
}
