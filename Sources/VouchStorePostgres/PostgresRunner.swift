import Logging
import PostgresNIO
import VouchStore

/// The statements of one store operation, on one leased connection.
///
/// Only valid inside `PostgresStore.single` or `PostgresStore.transaction`, which lease the
/// connection and give it back afterwards.
struct PostgresRunner: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Runs one statement and returns all its rows (every result here is small and bounded).
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    /// Runs one statement that returns nothing of interest.
    func execute(_ query: PostgresQuery) async throws {
        try await rows(query)
    }

    /// Runs a data-modifying statement ending in `RETURNING 1` and returns how many rows it
    /// changed, counted by the server (a purge may touch many rows; only the number travels).
    func count(_ statement: PostgresQuery) async throws -> Int {
        let query = PostgresQuery(
            unsafeSQL: "WITH changed AS (\(statement.sql)) SELECT COUNT(*)::bigint AS n FROM changed",
            binds: statement.binds)
        guard let row = try await rows(query).first else { throw StoreError.unavailable("COUNT returned no row") }
        return Int(try PostgresRecordRow(row).int64("n"))
    }

    /// Runs `body` between BEGIN and COMMIT under the server's default isolation, READ COMMITTED,
    /// and rolls back if anything in it throws (COMMIT included), so a failed operation writes
    /// nothing. What each operation relies on under READ COMMITTED is stated where it is written.
    func transaction<T>(_ body: () async throws -> T) async throws -> T {
        try await execute("BEGIN")
        do {
            let value = try await body()
            try await execute("COMMIT")
            return value
        } catch {
            do {
                try await execute("ROLLBACK")
            } catch {
                // The connection is gone (the server closed it): the server rolled back already.
                logger.debug("rollback failed", metadata: ["error": "\(StoreError.from(postgres: error))"])
            }
            throw error
        }
    }
}
