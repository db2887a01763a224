import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Synchronization
import VouchStore

/// The many-instance `Store`: any number of `vouch serve` processes on one PostgreSQL database.
///
/// Every guarantee of `Store` is kept by the database under its default isolation, READ
/// COMMITTED, never by state in this process: single statements that decide (a conditional
/// UPDATE, INSERT … ON CONFLICT), unique constraints, and the row lock an upsert takes on a user
/// (docs/ARCHITECTURE.md lists what each method rests on). Nothing is cached, so a change made
/// through one instance is what every other instance reads next.
///
/// Every operation is bounded by ``PostgresStoreOptions/timeout``: while the server is down an
/// operation fails as `StoreError.unavailable` within that time, and the first such failure opens
/// the store's circuit: every operation then fails at once until the store's probe reaches the
/// database again (within a quarter second of its return).
///
/// A store lives in the scope of ``open(url:options:logger:_:)``: its connection pool, the
/// watcher of its deadlines and its probe are child tasks of that call, so nothing of the store
/// outlives it, and a server run inside the scope is stopped before its store is.
public final class PostgresStore: Store {
    let pool: PostgresPool
    let options: PostgresStoreOptions
    let logger: Logger
    /// How the probe connects: the pool's server, user and TLS, on a connection of its own.
    let probeConfiguration: PostgresConnection.Configuration
    /// How the feed of session endings connects (`followSessionEndings`).
    let listenerConfiguration: PostgresConnection.Configuration
    /// Open while the database is taken for unreachable (see `Circuit`).
    let circuit = Circuit()
    let closed = Mutex(false)
    /// Bounds every operation by `options.timeout` (or the longer migration timeout), and each probe.
    let deadlines: DeadlineWatch

    private init(configurations: Configurations, options: PostgresStoreOptions, logger: Logger) {
        self.pool = PostgresPool(configuration: configurations.pool, logger: logger)
        self.probeConfiguration = configurations.probe
        self.listenerConfiguration = configurations.listener
        self.options = options
        self.logger = logger
        self.deadlines = DeadlineWatch(resolution: DeadlineWatch.resolution(for: options.timeout))
    }

    /// How long opening may wait for another instance's migration (the advisory lock).
    static let migrationTimeout: Duration = .seconds(120)

    /// Connects, migrates the database to the current schema (safely when several instances start
    /// at once), runs `body` with the store, and closes the store when `body` returns or throws.
    ///
    /// - Throws: `StoreError.unavailable` when the server cannot be reached or the schema cannot
    ///   be migrated (the message names the URL without its password); or what `body` throws.
    public static func open<Value>(
        url: PostgresDatabaseURL,
        options: PostgresStoreOptions = PostgresStoreOptions(),
        logger: Logger = Logger(label: "vouch.store.postgres"),
        _ body: (PostgresStore) async throws -> Value
    ) async throws -> Value {
        try options.validate()
        let store = PostgresStore(configurations: try Configurations(url: url, options: options), options: options, logger: logger)
        return try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await store.pool.run() }
            group.addTask { await store.deadlines.watch() }
            group.addTask { await PostgresCircuitProbe(store: store).run() }
            defer { group.cancelAll() }
            let outcome: Result<Value, any Error>
            do {
                try await store.migrate(url: url)
                outcome = .success(try await body(store))
            } catch {
                outcome = .failure(error)
            }
            try? await store.close()
            return try outcome.get()
        }
    }

    /// Brings the schema up to date, or throws `StoreError.unavailable` naming the URL.
    private func migrate(url: PostgresDatabaseURL) async throws {
        let started = ContinuousClock.now
        do {
            // Reaching the server is bounded by the ordinary timeout; only waiting for another
            // instance's migration may take longer.
            try await ping()
            let logger = self.logger
            let (from, to) = try await run("migrate", timeout: Self.migrationTimeout + options.timeout) { connection in
                try await PostgresMigrations.apply(
                    on: PostgresRunner(connection: connection, logger: logger),
                    now: Int64(Date().timeIntervalSince1970), lockTimeout: Self.migrationTimeout)
            }
            logger.info(
                "opened PostgreSQL store",
                metadata: [
                    "database": "\(url.redacted)", "pool_size": "\(options.poolSize)",
                    "timeout": "\(options.timeout)", "schema_version_found": "\(from)", "schema_version": "\(to)",
                    "duration": "\(ContinuousClock.now - started)",
                ])
        } catch {
            let reason = (error as? StoreError).flatMap { $0.kind == .unavailable ? $0.detail : nil }
            throw StoreError.unavailable("could not open \(url.redacted): \(reason ?? "\(error)")")
        }
    }

    // MARK: Running operations

    /// Leases a connection and runs `body` on it, within the deadline; maps what it throws.
    func run<T: Sendable>(
        _ operation: String, timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        guard !closed.withLock({ $0 }) else { throw StoreError.unavailable("the store is closed") }
        let spell = try circuit.admit()
        let client = pool.client
        do {
            return try await deadlines.run(timeout ?? options.timeout, operation: operation) {
                try await client.withConnection { connection in try await body(connection) }
            }
        } catch {
            let mapped = StoreError.from(postgres: error)
            if let failure = mapped as? StoreError, failure.kind == .unavailable {
                let reason = failure.detail ?? ""
                logger.error("store operation failed", metadata: ["operation": "\(operation)", "error": "\(reason)"])
                if PostgresFailure.isConnectionLevel(error) { tripCircuit(in: spell, operation: operation, reason: reason) }
            }
            throw mapped
        }
    }

    /// One statement (or a few that need no atomicity between them), on a leased connection.
    func single<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresRunner) async throws -> T) async throws -> T {
        let logger = self.logger
        return try await run(operation) { connection in try await body(PostgresRunner(connection: connection, logger: logger)) }
    }

    /// `body` as one READ COMMITTED transaction: it commits entirely or, on any throw, not at all.
    func transaction<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (PostgresRunner) async throws -> T) async throws -> T {
        try await single(operation) { db in try await db.transaction { try await body(db) } }
    }

    // MARK: Store

    public func ping() async throws {
        try await single("ping") { db in try await db.execute("SELECT 1") }
    }

    /// Stops the pool (its connections close) and gives up what still waits on it. Closing twice
    /// is harmless; any use afterwards throws `StoreError.unavailable`. The store's scope closes
    /// it on the way out.
    public func close() async throws {
        let closedNow = closed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard closedNow else { return }
        pool.close()
        deadlines.stop()
        logger.info("closed PostgreSQL store")
    }
}
