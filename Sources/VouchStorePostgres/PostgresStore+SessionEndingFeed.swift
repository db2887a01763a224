import Logging
import PostgresNIO
import VouchStore

/// The other instances' endings, heard through LISTEN/NOTIFY: the trigger on `session_endings`
/// notifies ``SessionEndingLog/channel`` when a statement appended, delivered at its commit.
/// Notifications carry nothing and are lost while nobody listens, so the log stays the truth: the
/// caller reads it after every wake, and after every (re)connection.
extension PostgresStore: SessionEndingFeed {
    /// The listening connection's `application_name` (how an operator, or a test, finds it in
    /// `pg_stat_activity`).
    public static let listenerApplicationName = "vouch-endings-listener"
    /// How often the listening connection is asked `SELECT 1`, so that a connection that died
    /// without a word (a network partition) is noticed and replaced.
    static let listenerHeartbeat: Duration = .seconds(15)

    /// Listens on a connection of its own (not the pool's) until cancelled or the store closes,
    /// reconnecting after a drop with exponential backoff and jitter
    /// (``PostgresStoreOptions/feedReconnectDelay`` doubling up to
    /// ``PostgresStoreOptions/feedReconnectCeiling``); each connection attempt, and each
    /// heartbeat, is bounded by ``PostgresStoreOptions/timeout``.
    ///
    /// - Parameters:
    ///   - wake: Called after each notification and right after each (re)connection.
    ///   - connected: `true` once listening, `false` when a listening connection dropped.
    public func followSessionEndings(
        wake: @escaping @Sendable () -> Void, connected: @escaping @Sendable (Bool) -> Void
    ) async throws {
        var failures = 0
        while !Task.isCancelled, !closed.withLock({ $0 }) {
            var listened = false
            do {
                try await listenOnce(
                    listening: {
                        listened = true
                        connected(true)
                        wake()
                    }, wake: wake)
            } catch {
                if Task.isCancelled { break }
                logger.warning(
                    "the feed of session endings lost its connection; listening again",
                    metadata: ["error": "\(StoreError.from(postgres: error))"])
            }
            if listened {
                connected(false)
                failures = 0
            }
            guard !Task.isCancelled, !closed.withLock({ $0 }) else { break }
            do {
                try await Task.sleep(for: Self.feedBackoff(after: failures, options: options))
            } catch {
                break
            }
            failures += 1
        }
    }

    /// The wait before attempt number `failures + 1`: the first delay doubled per failure up to
    /// the ceiling, then a random point of its upper half, so that instances cut off together do
    /// not come back together.
    static func feedBackoff(after failures: Int, options: PostgresStoreOptions) -> Duration {
        let doubled = options.feedReconnectDelay * (1 << min(failures, 20))
        let ceiling = min(doubled, options.feedReconnectCeiling)
        return ceiling * Double.random(in: 0.5...1)
    }

    /// One connection: connect, LISTEN, then wake per notification until the connection fails
    /// (the notifications end, or a heartbeat does). Closes the connection on every path.
    private func listenOnce(listening: () -> Void, wake: @escaping @Sendable () -> Void) async throws {
        let (configuration, logger, timeout) = (listenerConfiguration, logger, options.timeout)
        let connection = try await deadlines.run(timeout, operation: "listen") {
            try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        }
        do {
            try await connection.listen(on: SessionEndingLog.channel) { notifications in
                listening()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await _ in notifications { wake() }
                        throw StoreError.unavailable("the notifications ended")
                    }
                    group.addTask {
                        while true {
                            try await Task.sleep(for: Self.listenerHeartbeat)
                            try await self.deadlines.run(timeout, operation: "listen heartbeat") {
                                _ = try await connection.query("SELECT 1", logger: logger).collect()
                            }
                        }
                    }
                    defer { group.cancelAll() }
                    try await group.next()
                }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }
}
