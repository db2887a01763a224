import Foundation
import Logging
import NIOPosix
import NIOSSL
import PostgresNIO
import VouchStorePostgres

/// The PostgreSQL server the tests may use, from `VOUCH_TEST_DATABASE_URL`, and a fresh database
/// on it for each test, so tests never see each other's rows.
///
/// Without the variable the PostgreSQL tests are disabled (one line says so, see
/// ``skipMessage``); under CI (`CI=true`) a missing variable is a failure, not a skip, because CI
/// exists to run them.
public enum PostgresTestDatabase {
    public static let environmentVariable = "VOUCH_TEST_DATABASE_URL"

    /// The server URL, if one is configured (and parses).
    static let serverURL: PostgresDatabaseURL? = {
        guard let text = ProcessInfo.processInfo.environment[environmentVariable], !text.isEmpty else { return nil }
        return try? PostgresDatabaseURL(text)
    }()

    public static var isConfigured: Bool { serverURL != nil }

    /// Whether this run is CI, where every suite must run.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    public static let skipMessage =
        "PostgreSQL tests skipped: set \(environmentVariable)=postgres://USER@127.0.0.1:PORT/postgres?sslmode=disable "
        + "(scripts/pg-cluster.sh starts a throwaway server) to run them"

    /// Creates a database with a random name, runs `body` with its URL, then drops it (forcing
    /// out connections a failed test may have left).
    public static func with<T>(_ body: (PostgresDatabaseURL) async throws -> T) async throws -> T {
        guard let server = serverURL else { throw PostgresTestDatabaseError(skipMessage) }
        let name = "vouch_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await administer(server, "CREATE DATABASE \(name)")
        let value: T
        do {
            value = try await body(server.withDatabase(name))
        } catch {
            try? await administer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            throw error
        }
        try await administer(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        return value
    }

    /// Runs one statement on the server's own database over a connection of its own.
    static func administer(_ server: PostgresDatabaseURL, _ sql: String) async throws {
        let tls: PostgresConnection.Configuration.TLS =
            server.tlsMode == .disable
            ? .disable : .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.database, tls: tls)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1,
            logger: Logger(label: "vouch.tests.postgres-admin")
        ).get()
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "vouch.tests.postgres-admin"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

struct PostgresTestDatabaseError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
