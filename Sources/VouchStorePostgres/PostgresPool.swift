import Logging
import PostgresNIO
import Synchronization

/// The store's connection pool, replaced by a fresh pool when the database comes back after an
/// outage: PostgresNIO's pool waits ever longer between attempts to reconnect (a quarter of the
/// outage so far, up to a minute) and cannot be told to try again now.
///
/// Every pool runs as a child task of ``run()``, which the store runs in its scope: no pool
/// outlives the store.
final class PostgresPool: Sendable {
    /// A pool, and how its runner is told that the pool is retired.
    private struct Pool: Sendable {
        let client: PostgresClient
        let retired: AsyncStream<Void>
        let retire: AsyncStream<Void>.Continuation

        init(_ configuration: PostgresClient.Configuration, logger: Logger) {
            client = PostgresClient(configuration: configuration, backgroundLogger: logger)
            (retired, retire) = AsyncStream<Void>.makeStream()
        }
    }

    private struct State {
        var current: Pool
        var closed = false
    }

    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let state: Mutex<State>
    /// The pools for `run()` to start: the first, then each made by `renew()`.
    private let started: AsyncStream<Pool>
    private let start: AsyncStream<Pool>.Continuation

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        let first = Pool(configuration, logger: logger)
        state = Mutex(State(current: first))
        (started, start) = AsyncStream<Pool>.makeStream()
        start.yield(first)
    }

    /// The pool operations lease their connections from now.
    var client: PostgresClient { state.withLock { $0.current.client } }

    /// Runs every pool until it is retired, until `close()` or cancellation; each pool's
    /// connections are closed before this returns. Call it once.
    func run() async {
        await withDiscardingTaskGroup { group in
            // Ends at `close()`, or when this task is cancelled.
            for await pool in started {
                group.addTask {
                    await withDiscardingTaskGroup { running in
                        running.addTask { await pool.client.run() }
                        // Ends when the pool is retired, or when this task is cancelled.
                        for await _ in pool.retired {}
                        running.cancelAll()
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// Starts a fresh pool for the operations to come and shuts the current one down: its
    /// connections close, and an operation still on one fails (it was admitted before the outage
    /// ended and has had its answer or will have it at its deadline).
    func renew() {
        let fresh = Pool(configuration, logger: logger)
        let old = state.withLock { state -> Pool? in
            guard !state.closed else { return nil }
            defer { state.current = fresh }
            return state.current
        }
        guard let old else { return }
        start.yield(fresh)
        old.retire.finish()
    }

    /// Retires every pool; `run()` returns once their connections are closed.
    func close() {
        let current = state.withLock { state in
            state.closed = true
            return state.current
        }
        start.finish()
        current.retire.finish()
    }
}
