import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import VouchServer
import VouchStore
import VouchStorePostgres
import VouchStoreSQLite

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the authentication server.",
        discussion: """
            With no options it listens on 127.0.0.1:8080 and keeps everything in ./vouch-data \
            (an SQLite database, created on first start). The admin token comes from \
            VOUCH_ADMIN_TOKEN, or is generated on first start into <data-dir>/admin-token (mode 0600) \
            and printed once. SIGINT or SIGTERM stops the server cleanly. With \
            --database postgres://… (or VOUCH_DATABASE_URL) it keeps everything in PostgreSQL \
            instead, and any number of instances may share that database.
            """
    )

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(name: .long, help: "Directory for the SQLite database and the admin token.")
    var dataDir = "./vouch-data"

    @Option(
        name: .long,
        help:
            "Database URL: postgres://USER:PASSWORD@HOST:PORT/DB[?sslmode=disable|prefer|require] or sqlite://PATH; default: SQLite in --data-dir (also VOUCH_DATABASE_URL)."
    )
    var database: String?

    @Option(name: .long, help: "PostgreSQL: most connections this instance opens.")
    var databasePoolSize = 10

    @Option(
        name: .long, help: "PostgreSQL: seconds any wait on the database may take (connect, statement, lock, free connection) before the request gets a 503.")
    var databaseTimeout: Int64 = 5

    @Option(
        name: .long,
        help:
            "SQLite: microseconds (0…10000) a group commit may wait for more writes while writes arrive together, blocking the committing request's thread (never on one core); 0 commits at once."
    )
    var groupCommitWait = 200

    @Option(
        name: .long,
        help:
            "SQLite: most sessions (0…1000000) whose look-up is kept in memory between the writes that change them (about 900 bytes each); 0 reads every request's session, app and key, and every sign-in's user, from the file."
    )
    var sessionCache = SQLiteStore.defaultSessionCacheCapacity

    @Option(name: .long, help: "POST /nonces + POST /sessions per second per client IP, bursts up to twice that; 0 turns it off.")
    var rateLimit = 50

    @Option(name: .long, help: "Clock leeway in seconds for exp and iat.")
    var leeway: Int64 = 60

    @Option(name: .long, help: "Seconds a connection may stay silent (no complete request, or idle between requests) before it is closed.")
    var idleTimeout: Int64 = 30

    @Option(name: .long, help: "Seconds a request may take from its head to the end of its body before the connection is closed.")
    var requestTimeout: Int64 = 30

    @Flag(name: .long, help: "Mark the dashboard's cookies Secure: use when browsers reach the server over HTTPS (a TLS-terminating proxy).")
    var secureCookies = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A proxy (IP address) whose X-Forwarded-For names the client for the rate limits; repeat for several.",
            valueName: "address"))
    var trustedProxy: [String] = []

    @Option(name: .long, help: "Days the audit log keeps an entry (1…3650); older ones are purged.")
    var auditRetentionDays: Int64 = 90

    @Option(
        name: .long,
        help: "Seconds between writes of the counted rejected sign-ins to the audit log (1…3600); they are also written on shutdown and before the log is read."
    )
    var auditFlushInterval: Int64 = 10

    @Option(
        name: .long,
        help:
            "The URL the app's services reach this server at (https://vouch.example.com): the iss of access tokens and the base of the JWKS URL. Without it: http://<host>:<port>, for development."
    )
    var publicURL: String?

    @Flag(
        name: .long,
        help:
            "Let webhooks and providers' JWKS and discovery URLs reach loopback addresses, over http too: for tests and local development only. Private and link-local addresses stay refused."
    )
    var allowLoopbackOutbound = false

    @Option(
        name: .long,
        help:
            "Seconds before a failed webhook delivery is first tried again (each later wait is four times longer, up to an hour, for 24 hours)."
    )
    var webhookFirstRetrySeconds = 5.0

    @Option(
        name: .long,
        help:
            "Hours a provider's last good keys from its JWKS URL keep verifying while the URL fails (1–720)."
    )
    var keySourceGraceHours: Int64 = 24

    @Option(name: .long, help: "Days each of Vouch's own signing keys signs access tokens before its successor takes over.")
    var signingKeyRotationDays: Int64 = 30

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    /// Each component checks its own configuration (`validate()` beside its fields); the command
    /// only names the flag that set a field, and checks what is text on the command line.
    func validate() throws {
        try named { () throws(ConfigurationError) in try serverConfiguration(adminToken: "unchecked").validate() }
        try named { () throws(ConfigurationError) in try sqliteConfiguration.validate() }
        try named { () throws(ConfigurationError) in try postgresOptions.validate() }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        for address in trustedProxy where ServerConfiguration.canonicalAddress(address) == nil {
            throw ValidationError("--trusted-proxy \(address) is not an IP address (e.g. 10.0.0.5 or ::1)")
        }
    }

    /// The flag that sets each configuration field.
    private static let flags: [String: String] = [
        "port": "--port", "rateLimit": "--rate-limit", "leewaySeconds": "--leeway",
        "connectionLimits.idleTimeoutSeconds": "--idle-timeout", "connectionLimits.requestTimeoutSeconds": "--request-timeout",
        "auditRetentionDays": "--audit-retention-days", "auditFlushIntervalSeconds": "--audit-flush-interval",
        "groupGathering.maximumWait": "--group-commit-wait", "sessionCacheCapacity": "--session-cache",
        "poolSize": "--database-pool-size", "timeout": "--database-timeout", "publicURL": "--public-url",
        "signingKeys.rotationIntervalSeconds": "--signing-key-rotation-days",
        "webhookDeliveries": "--webhook-first-retry-seconds", "keySources.graceSeconds": "--key-source-grace-hours",
    ]

    private func named(_ check: () throws(ConfigurationError) -> Void) throws {
        do {
            try check()
        } catch {
            throw ValidationError("\(Self.flags[error.field] ?? error.field) must be \(error.accepted)")
        }
    }

    private func serverConfiguration(adminToken: String) -> ServerConfiguration {
        var configuration = ServerConfiguration(
            host: host, port: port, rateLimit: rateLimit, leewaySeconds: leeway, adminToken: adminToken,
            connectionLimits: ConnectionLimits(idleTimeoutSeconds: idleTimeout, requestTimeoutSeconds: requestTimeout))
        configuration.secureCookies = secureCookies
        configuration.auditRetentionDays = auditRetentionDays
        configuration.auditFlushIntervalSeconds = auditFlushInterval
        configuration.trustedProxies = Set(trustedProxy.compactMap(ServerConfiguration.canonicalAddress))
        configuration.publicURL = publicURL
        configuration.allowsLoopbackOutbound = allowLoopbackOutbound
        let (grace, graceOverflow) = keySourceGraceHours.multipliedReportingOverflow(by: 3_600)
        configuration.keySources.graceSeconds = graceOverflow ? .max : grace
        if webhookFirstRetrySeconds.isFinite, abs(webhookFirstRetrySeconds) < 1e9 {
            configuration.webhookDeliveries.firstRetryDelay = .milliseconds(Int64(webhookFirstRetrySeconds * 1_000))
        } else {
            configuration.webhookDeliveries.firstRetryDelay = .zero
        }
        let (seconds, overflow) = signingKeyRotationDays.multipliedReportingOverflow(by: 86_400)
        configuration.signingKeys.rotationIntervalSeconds = overflow ? .max : seconds
        return configuration
    }

    private var sqliteConfiguration: SQLiteStore.Configuration {
        SQLiteStore.Configuration(
            groupGathering: groupCommitWait == 0
                ? .none : GroupGathering(maximumWait: .microseconds(groupCommitWait), enough: GroupGathering.standard.enough),
            sessionCacheCapacity: sessionCache)
    }

    private var postgresOptions: PostgresStoreOptions {
        PostgresStoreOptions(poolSize: databasePoolSize, timeout: .seconds(databaseTimeout))
    }

    func run() async throws {
        let logger = LogSetup.logger(label: "vouch", level: logLevel)
        // Everything the server creates (database, WAL, admin token) is for its user alone.
        umask(0o077)
        HeapTrimming.apply()
        let dataDirectory = try DataDirectory(path: dataDir)
        let databaseURL = database ?? ProcessInfo.processInfo.environment["VOUCH_DATABASE_URL"]
        try await withStore(url: databaseURL, dataDirectory: dataDirectory, logger: logger) { store in
            let configuration = serverConfiguration(adminToken: try dataDirectory.adminToken())
            let host = self.host
            let app = try await VouchServer.makeApplication(
                configuration: configuration, store: store, logger: logger,
                onServerRunning: { port in
                    Console.line("vouch listening on http://\(host):\(port)")
                })
            try await app.runService()
        }
    }

    /// Runs `body` with the store `url` names, and closes the store after it. The PostgreSQL
    /// store's pool and probe run for exactly that long, so the server stops before its store.
    private func withStore(
        url: String?, dataDirectory: DataDirectory, logger: Logger,
        _ body: (any Store) async throws -> Void
    ) async throws {
        if let url, !url.isEmpty, url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            let parsed: PostgresDatabaseURL
            do { parsed = try PostgresDatabaseURL(url) } catch { throw CLIError("--database: \(error)") }
            do {
                try await PostgresStore.open(url: parsed, options: postgresOptions, logger: logger) { try await body($0) }
            } catch let error as StoreError where error.kind == .unavailable {
                throw CLIError(error.detail ?? "\(error)")
            }
            return
        }
        try await closing(try await openSQLite(url: url, dataDirectory: dataDirectory, logger: logger), body)
    }

    private func openSQLite(url: String?, dataDirectory: DataDirectory, logger: Logger) async throws -> SQLiteStore {
        let path: String
        if let url, !url.isEmpty {
            let prefix = "sqlite://"
            guard url.hasPrefix(prefix) else { throw CLIError("--database must be postgres://… or sqlite://PATH (or omitted)") }
            path = String(url.dropFirst(prefix.count))
        } else {
            path = try dataDirectory.sqliteDatabasePath()
        }
        do {
            return try await SQLiteStore.open(path: path, configuration: sqliteConfiguration, logger: logger)
        } catch let error as StoreError where error.kind == .unavailable {
            throw CLIError(error.detail ?? "\(error)")
        }
    }
}
