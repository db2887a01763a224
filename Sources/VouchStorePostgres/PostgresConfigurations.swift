import NIOCore
import NIOSSL
import PostgresNIO

extension PostgresStore {
    /// How the store reaches the server: its pool, and the probe's and the feed's connections of
    /// their own (the same server, user, database and TLS).
    struct Configurations {
        let pool: PostgresClient.Configuration
        let probe: PostgresConnection.Configuration
        /// The feed of session endings' connection, outside the pool: it LISTENs for as long as
        /// it lives, which a pooled connection must not.
        let listener: PostgresConnection.Configuration

        /// Every wait of the pool is bounded by the timeout, set on the server too
        /// (`statement_timeout`, `lock_timeout`) so that a stuck statement ends there as well.
        /// The probe's connection is bounded by its own, shorter deadline.
        init(url: PostgresDatabaseURL, options: PostgresStoreOptions) throws {
            let tls: PostgresClient.Configuration.TLS
            let probeTLS: PostgresConnection.Configuration.TLS
            switch url.tlsMode {
            case .disable:
                tls = .disable
                probeTLS = .disable
            case .prefer:
                tls = .prefer(.makeClientConfiguration())
                probeTLS = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require:
                tls = .require(.makeClientConfiguration())
                probeTLS = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            var pool = PostgresClient.Configuration(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: tls)
            pool.options.maximumConnections = options.poolSize
            pool.options.minimumConnections = 0
            pool.options.connectTimeout = options.timeout
            let milliseconds = String(options.timeoutMilliseconds)
            pool.options.additionalStartupParameters = [
                ("application_name", "vouch"),
                ("statement_timeout", milliseconds),
                ("lock_timeout", milliseconds),
                // A transaction abandoned by a crashed caller must not hold its row locks for long.
                ("idle_in_transaction_session_timeout", milliseconds),
            ]
            var probe = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.username, password: url.password,
                database: url.database, tls: probeTLS)
            probe.options.connectTimeout = TimeAmount(PostgresCircuitProbe.deadline)
            probe.options.additionalStartupParameters = [("application_name", "vouch-probe")]
            var listener = probe
            listener.options.connectTimeout = TimeAmount(options.timeout)
            listener.options.additionalStartupParameters = [("application_name", PostgresStore.listenerApplicationName)]
            self.pool = pool
            self.probe = probe
            self.listener = listener
        }
    }
}
