import Foundation
import Synchronization
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
import VouchPostgresTestSupport

@testable import VouchStorePostgres

/// What the feed reported, in order, and a way to wait for the next report of a kind.
private final class FeedEvents: Sendable {
    enum Event: Equatable, Sendable {
        case connected(Bool)
        case wake
    }

    private let events = Mutex<[Event]>([])

    func record(_ event: Event) { events.withLock { $0.append(event) } }

    var count: Int { events.withLock { $0.count } }

    /// Waits until an event equal to `event` arrives at or after index `from`; returns the index
    /// after it, or fails once `limit` has passed.
    func wait(for event: Event, from: Int, within limit: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let found = events.withLock { events in events.indices.first { $0 >= from && events[$0] == event } }
            if let found { return found + 1 }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestFailure("no \(event) within \(limit): \(events.withLock { $0 })")
    }
}

@Suite(
    "PostgresStore's feed of session endings", .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct SessionEndingFeedTests {
    @Test("wakes within a second of another instance's ending; after its connection is killed it says so, listens again, and the log has what it missed")
    func followsAcrossInstancesAndReconnects() async throws {
        try await PostgresTestDatabase.with { url in
            // A first retry slow enough that endings certainly commit while nobody listens.
            var options = testOptions
            options.feedReconnectDelay = .milliseconds(800)
            options.feedReconnectCeiling = .seconds(1)
            try await PostgresStore.open(url: url, options: options) { follower in
                try await PostgresStore.open(url: url, options: testOptions) { other in
                    let events = FeedEvents()
                    let feed = Task {
                        try await follower.followSessionEndings(
                            wake: { events.record(.wake) }, connected: { events.record(.connected($0)) })
                    }
                    defer { feed.cancel() }
                    var next = try await events.wait(for: .connected(true), from: 0, within: .seconds(30))
                    next = try await events.wait(for: .wake, from: next, within: .seconds(5))

                    // An ending through the other instance wakes the follower within a second.
                    let app = try await other.addApp()
                    let first = newSession(app: app.id, user: "u")
                    let second = newSession(app: app.id, user: "u")
                    for session in [first, second] { _ = try await other.createSession(session) }
                    next = events.count
                    let ended = ContinuousClock.now
                    #expect(try await other.revokeSession(tokenHash: first.tokenHash, now: t0 + 1))
                    next = try await events.wait(for: .wake, from: next, within: .seconds(1))
                    #expect(ContinuousClock.now - ended < .seconds(1))
                    let seen = try await follower.sessionEndings(after: 0, limit: 10)
                    #expect(seen.entries.map(\.scope) == [.session(first.sessionID, appID: app.id, userID: "u")])
                    let lastRead = try #require(seen.entries.last?.position)

                    // The listening connection is killed: the feed says so, an ending commits
                    // while it is away, it listens again and wakes, and the log has the ending.
                    let killed = try await other.single("terminate the listener") { db in
                        try await db.rows(
                            """
                            SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
                            WHERE application_name = \(PostgresStore.listenerApplicationName) AND datname = current_database()
                            """
                        ).count
                    }
                    #expect(killed == 1)
                    next = try await events.wait(for: .connected(false), from: next, within: .seconds(10))
                    #expect(try await other.revokeSession(tokenHash: second.tokenHash, now: t0 + 2))
                    next = try await events.wait(for: .connected(true), from: next, within: .seconds(30))
                    next = try await events.wait(for: .wake, from: next, within: .seconds(5))
                    let missed = try await follower.sessionEndings(after: lastRead, limit: 10)
                    #expect(missed.entries.map(\.scope) == [.session(second.sessionID, appID: app.id, userID: "u")])
                    #expect(missed.missedEntries(after: lastRead) == false)

                    // Cancelled, it stops promptly.
                    feed.cancel()
                    let stopping = ContinuousClock.now
                    _ = try? await feed.value
                    #expect(ContinuousClock.now - stopping < .seconds(5))
                }
            }
        }
    }

    @Test("the backoff doubles from the first delay up to the ceiling, jittered within its upper half")
    func backoff() {
        let options = PostgresStoreOptions()
        for failures in 0..<12 {
            let ceiling = min(Duration.milliseconds(100) * (1 << failures), .seconds(5))
            let wait = PostgresStore.feedBackoff(after: failures, options: options)
            #expect(wait >= ceiling / 2 && wait <= ceiling, "\(failures): \(wait)")
        }
        #expect(PostgresStore.feedBackoff(after: 1_000, options: options) <= .seconds(5))
    }
}
