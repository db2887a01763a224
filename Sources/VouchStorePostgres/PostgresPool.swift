import Logging
import PostgresNIO
import Synchronization

/// The store's connection pool and the task that runs it, replaced by a fresh pool when the
/// database comes back after an outage: PostgresNIO's pool waits ever longer between attempts to
/// reconnect (a quarter of the outage so far, up to a minute) and cannot be told to try again now.
final class PostgresPool: Sendable {
    private struct Running {
        let client: PostgresClient
        let task: Task<Void, Never>
    }

    private struct State {
        var current: Running
        /// Pools replaced by `renew()`, shutting down; awaited by `close()`.
        var retired: [Task<Void, Never>] = []
        var closed = false
    }

    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let state: Mutex<State>

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        state = Mutex(State(current: Self.start(configuration, logger: logger)))
    }

    private static func start(_ configuration: PostgresClient.Configuration, logger: Logger) -> Running {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return Running(client: client, task: Task { await client.run() })
    }

    /// The pool operations lease their connections from now.
    var client: PostgresClient { state.withLock { $0.current.client } }

    /// Starts a fresh pool for the operations to come and shuts the current one down: its
    /// connections close, and an operation still on one fails (it was admitted before the outage
    /// ended and has had its answer or will have it at its deadline).
    func renew() {
        let fresh = Self.start(configuration, logger: logger)
        let old = state.withLock { state -> Task<Void, Never> in
            // After `close()` nothing may start again: the fresh pool is the one shut down.
            guard !state.closed else { return fresh.task }
            let old = state.current.task
            state.current = fresh
            state.retired.append(old)
            return old
        }
        old.cancel()
    }

    /// Shuts down the current pool and waits for every pool to end.
    func close() async {
        let tasks = state.withLock { state in
            state.closed = true
            return [state.current.task] + state.retired
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
