import SQLiteNIO
import VouchStore
import Logging

/// The statements of one operation, run on the store's connection.
///
/// Only valid inside `SQLiteStore.exclusive` or `SQLiteStore.transaction`, which hold the store's
/// lock: that is what keeps another task's statements out of a transaction.
struct SQLiteRunner: Sendable {
    let connection: SQLiteConnection

    /// Runs one statement (SQLite prepares only the first statement of a string) and returns its rows.
    @discardableResult
    func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        try await connection.query(sql, binds)
    }

    /// Runs one statement that returns nothing of interest.
    func execute(_ sql: String, _ binds: [SQLiteData] = []) async throws {
        try await rows(sql, binds)
    }

    /// Runs an INSERT, UPDATE or DELETE and returns how many rows it changed.
    func changes(_ sql: String, _ binds: [SQLiteData] = []) async throws -> Int {
        try await execute(sql, binds)
        let result = try await rows("SELECT changes() AS n")
        guard let row = result.first else { throw StoreError.unavailable("changes() returned no row") }
        return Int(try row.int64("n"))
    }

    /// Runs `body` between BEGIN IMMEDIATE and COMMIT, and rolls back if anything in it throws
    /// (COMMIT included), so that a failed operation writes nothing.
    ///
    /// IMMEDIATE takes the write lock at BEGIN rather than at the first write: another process
    /// holding it then makes BEGIN wait (busy timeout) instead of failing the transaction midway.
    func transaction<T>(logger: Logger, _ body: () async throws -> T) async throws -> T {
        try await execute("BEGIN IMMEDIATE")
        do {
            let value = try await body()
            try await execute("COMMIT")
            return value
        } catch {
            await rollback(logger: logger)
            throw error
        }
    }

    /// Rolls back whatever transaction is open. A failure is logged and swallowed: the caller is
    /// already reporting the error that made it roll back, which matters more.
    func rollback(logger: Logger) async {
        do {
            try await execute("ROLLBACK")
        } catch {
            // SQLite rolls back by itself after some errors (e.g. SQLITE_FULL): then there is none.
            logger.debug("rollback found no open transaction", metadata: ["error": "\(error)"])
        }
    }
}
