import Foundation
import Logging
import SQLiteNIO
import VouchStore

/// The single-instance `Store`: one SQLite file, one connection.
///
/// One connection, used by one operation at a time through a FIFO lock, because SQLite allows a
/// single writer anyway and a transaction on a shared connection must not have another task's
/// statements run in the middle of it. Every guarantee of `Store` (a nonce used once, a suspension
/// visible at once) then follows from SQLite's transactions, not from in-process state.
///
/// Call ``close()`` before dropping the store: SQLiteNIO asserts that every connection is closed.
public final class SQLiteStore: Store {
    /// How long a statement waits for another process's write lock before failing as unavailable.
    static let busyTimeoutMilliseconds = 5_000

    let connection: SQLiteConnection
    let lock = AsyncLock()
    let logger: Logger

    private init(connection: SQLiteConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Opens (creating if needed) the database file at `path` and migrates it to the current schema.
    ///
    /// The file runs in WAL mode so that readers (a backup, the sqlite3 shell) do not block the
    /// server, with `synchronous=FULL` so that a committed sign-in survives a power loss, and with
    /// foreign keys enforced so that a session cannot name an app that does not exist.
    ///
    /// - Throws: `StoreError.unavailable` when the file cannot be opened or migrated; the
    ///   connection is then closed again.
    public static func open(
        path: String,
        logger: Logger = Logger(label: "vouch.store.sqlite")
    ) async throws -> SQLiteStore {
        let started = ContinuousClock.now
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        } catch {
            throw StoreError.from(sqlite: error)
        }
        // From here on the connection must be closed on every failure.
        do {
            // Unstructured so that a cancelled caller cannot stop a migration halfway.
            let (from, to) = try await Task {
                let db = SQLiteRunner(connection: connection)
                try await configure(db)
                return try await SQLiteMigrations.apply(
                    on: db, now: Int64(Date().timeIntervalSince1970), logger: logger)
            }.value
            logger.info("opened SQLite store", metadata: [
                "path": "\(path)",
                "schema_version_found": "\(from)",
                "schema_version": "\(to)",
                "duration": "\(ContinuousClock.now - started)",
            ])
            return SQLiteStore(connection: connection, logger: logger)
        } catch {
            try? await Task { try await connection.close() }.value
            let mapped = StoreError.from(sqlite: error)
            logger.error("could not open SQLite store", metadata: ["path": "\(path)", "error": "\(mapped)"])
            throw mapped
        }
    }

    /// The per-connection settings; all must hold before the first transaction.
    private static func configure(_ db: SQLiteRunner) async throws {
        let mode = try await db.rows("PRAGMA journal_mode = WAL").first?.text("journal_mode")
        guard mode?.lowercased() == "wal" else {
            throw StoreError.unavailable("could not switch to WAL mode (journal_mode is \(mode ?? "unknown"))")
        }
        try await db.execute("PRAGMA synchronous = FULL")
        try await db.execute("PRAGMA foreign_keys = ON")
        // Replaces SQLiteNIO's wait-forever busy handler: a stuck lock becomes an error, not a hang.
        try await db.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
    }

    /// Runs `body` alone on the connection, and maps what it throws to `StoreError`.
    ///
    /// Used directly for single statements, which SQLite runs atomically by themselves; they take
    /// the lock too, so that they never land inside another task's transaction.
    func exclusive<T>(_ operation: String, _ body: (SQLiteRunner) async throws -> T) async throws -> T {
        do {
            return try await lock.withLock {
                guard !connection.isClosed else { throw StoreError.unavailable("the store is closed") }
                return try await body(SQLiteRunner(connection: connection))
            }
        } catch {
            let mapped = StoreError.from(sqlite: error)
            if case StoreError.unavailable(let reason) = mapped {
                logger.error("store operation failed", metadata: ["operation": "\(operation)", "error": "\(reason)"])
            }
            throw mapped
        }
    }

    /// Runs `body` as one transaction, alone on the connection: it commits entirely or, on any
    /// throw, rolls back entirely.
    ///
    /// The transaction runs in an unstructured task so that a cancelled caller (a client hanging
    /// up) cannot abandon it between BEGIN and COMMIT with the connection still inside it.
    func transaction<T: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable (SQLiteRunner) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        return try await exclusive(operation) { db in
            try await Task {
                try await db.transaction(logger: logger) { try await body(db) }
            }.value
        }
    }

    // MARK: Store

    public func ping() async throws {
        try await exclusive("ping") { db in try await db.execute("SELECT 1") }
    }

    /// Closes the connection once every operation queued before it has finished. Closing twice is
    /// harmless; any use afterwards throws `StoreError.unavailable`.
    public func close() async throws {
        let closedNow: Bool
        do {
            closedNow = try await lock.withLock {
                guard !connection.isClosed else { return false }
                try await Task { try await connection.close() }.value
                return true
            }
        } catch {
            throw StoreError.from(sqlite: error)
        }
        if closedNow { logger.info("closed SQLite store") }
    }
}
