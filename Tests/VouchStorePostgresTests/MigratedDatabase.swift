import Logging
import NIOPosix
import PostgresNIO
import VouchStoreConformance

@testable import VouchStorePostgres

/// Leaves the database at `url` as schema `version` left it, plus whatever `body` writes over a
/// connection of its own (closed on every path): what an upgrade test starts from.
func makePostgresDatabase(
    at url: PostgresDatabaseURL, asVersion version: Int, _ body: (PostgresRunner) async throws -> Void
) async throws {
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
            Array(PostgresMigrations.all.prefix { $0.version <= version }), on: db, now: t0, lockTimeout: .seconds(30))
        try await body(db)
    } catch {
        try? await connection.close()
        throw error
    }
    try await connection.close()
}
