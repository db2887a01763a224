import Foundation
import Testing
import VouchStore
import VouchStoreConformance
@testable import VouchStorePostgres
import VouchPostgresTestSupport
import VouchTestSupport

@Suite("Circuit")
struct CircuitTests {
    @Test("opens only while watched and only for the spell it is in; while open every admission fails at once")
    func states() throws {
        let circuit = Circuit()
        let unwatched = try circuit.admit()
        #expect(!circuit.trip(in: unwatched, reason: "no probe"), "nothing would close it")
        #expect(!circuit.isOpen)

        #expect(circuit.watch())
        #expect(!circuit.watch(), "one probe a store")
        let spell = try circuit.admit()
        #expect(circuit.trip(in: spell, reason: "refused"))
        #expect(!circuit.trip(in: spell, reason: "again"), "opened once")
        #expect(throws: StoreError.self) { try circuit.admit() }
        #expect(circuit.close() != nil)
        #expect(circuit.close() == nil)

        // An operation admitted before the close and failing after it reopens nothing.
        #expect(!circuit.trip(in: spell, reason: "late"))
        _ = try circuit.admit()
        #expect(circuit.openings == 1)

        // The probe leaving closes it for good.
        #expect(circuit.trip(in: try circuit.admit(), reason: "refused"))
        circuit.unwatch()
        #expect(!circuit.isOpen)
        #expect(!circuit.trip(in: try circuit.admit(), reason: "unwatched"))
    }

    @Test("the probe's wait ends when the circuit opens, or when its task is cancelled")
    func waiting() async throws {
        let circuit = Circuit()
        #expect(circuit.watch())
        let waiter = Task { await circuit.waitUntilOpen() }
        try await Task.sleep(for: .milliseconds(20))
        #expect(circuit.trip(in: try circuit.admit(), reason: "refused"))
        await waiter.value
        circuit.close()
        let cancelled = Task { await circuit.waitUntilOpen() }
        cancelled.cancel()
        await cancelled.value
        #expect(!circuit.isOpen)
    }
}

@Suite(
    "PostgresStore's circuit", .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresCircuitTests {
    static let options = PostgresStoreOptions(poolSize: 2, timeout: .seconds(30))

    @Test("a refused statement leaves the circuit closed; a connection the server ends opens it, and the probe closes it")
    func opensOnConnectionFailuresOnly() async throws {
        try await Self.withStores { store, other in
            // The store's scope runs its probe.
            try await Self.until("the probe watches") { store.circuit.isWatched }

            let app = AppRecord(id: UUID(), name: "circuit", sessionTTLSeconds: 3600, createdAt: 1_700_000_000)
            try await store.createApp(app)
            await #expect(throws: StoreError.alreadyExists) { try await store.createApp(app) }
            #expect(store.circuit.openings == 0, "a unique violation says nothing about reaching the database")

            try await Self.endConnectionMidStatement(of: store, from: other)
            #expect(store.circuit.openings == 1)
            // The database never went away: the probe reaches it at once, and operations run again.
            try await Self.until("the probe closes the circuit") { !store.circuit.isOpen }
            #expect(try await store.app(id: app.id) == app)
        }
    }

    /// Two stores on one fresh database: the one under test, and another to act on the server.
    static func withStores(_ body: (PostgresStore, PostgresStore) async throws -> Void) async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresStore.open(url: url, options: options) { store in
                try await PostgresStore.open(url: url, options: options) { other in
                    try await body(store, other)
                }
            }
        }
    }

    /// Ends, from `other`, the server process serving a statement of `store`, as a restart of
    /// the server would; the statement fails.
    static func endConnectionMidStatement(of store: PostgresStore, from other: PostgresStore) async throws {
        let sleeping = Task { try await store.single("sleep") { db in try await db.execute("SELECT pg_sleep(60)") } }
        try await until("the statement is ended") {
            try await other.single("terminate") { db in
                try await db.rows(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND query = 'SELECT pg_sleep(60)' AND pid <> pg_backend_pid()
                    """
                ).count > 0
            }
        }
        await #expect(throws: StoreError.self) { try await sleeping.value }
    }

    static func until(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw StoreError.unavailable("timed out waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
