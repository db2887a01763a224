import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
import VouchPostgresTestSupport

@testable import VouchStorePostgres

/// PostgreSQL draws an event's position before its transaction commits, so positions alone are
/// not commit order: these hold a transaction open between another's draw and commit, and check
/// that a reader of the outbox never passes over the event that commits last.
@Suite(
    "PostgresStore's outbox read as a stream", .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct SecurityEventStreamTests {
    @Test("an event with the lower position that commits last is not passed over: nothing newer is shown while it is being written")
    func olderTransactionHoldsTheStream() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresStore.open(url: url, options: testOptions) { store in
                let app = try await store.addApp()
                let (opened, open) = AsyncStream.makeStream(of: Void.self)
                let (released, release) = AsyncStream.makeStream(of: Void.self)
                // The slow transaction draws its position first, then waits before committing.
                let slow = Task {
                    try await store.transaction("slow event") { db in
                        try await db.execute("SELECT vouch_record_event(\(app.id), NULL, 'key.created', \(t0), '{}')")
                        open.yield()
                        for await _ in released { break }
                    }
                }
                for await _ in opened { break }
                _ = try await store.cutOff(.app(app.id), reason: nil, now: t0 + 1)
                let cursor = try await store.securityEventCursor(appID: app.id, since: t0 - 60)
                #expect(
                    try await store.securityEvents(appID: app.id, after: .start, kinds: nil, limit: 10).isEmpty,
                    "the committed cutoff is held back while an older transaction may still add below it")

                release.yield()
                release.finish()
                try await slow.value
                let events = try await store.settledSecurityEvents(appID: app.id, count: 2)
                #expect(events.map(\.kind) == [.keyCreated, .cutoffSet], "the older transaction's event first")
                let read = try await store.securityEvents(appID: app.id, after: cursor, kinds: nil, limit: 10)
                #expect(read.map(\.event.kind) == [.keyCreated, .cutoffSet], "a stream started before sees both")
                #expect(read[0].cursor < read[1].cursor && read[0].cursor.transaction != 0)
            }
        }
    }
}
