import Logging

/// Watches the store's circuit and closes it once the database answers again: while it is open, a
/// `SELECT 1` on a connection of its own every ``interval``, each bounded by ``deadline``. It is
/// the one thing that waits on a database that is down; requests meanwhile get their 503 at once.
///
/// The store runs it in its scope (`PostgresStore.open(url:options:logger:_:)`), so it runs
/// exactly as long as the store. One probe a store: a second one ends at once.
struct PostgresCircuitProbe {
    let store: PostgresStore

    /// How long the probe rests between failed attempts.
    static let interval: Duration = .milliseconds(250)
    /// The bound on one attempt: connecting, authenticating and `SELECT 1`, far below any
    /// `--database-timeout` a reachable database needs.
    static let deadline: Duration = .seconds(1)

    /// Probes whenever the circuit is open, until cancelled.
    func run() async {
        let circuit = store.circuit
        guard circuit.watch() else {
            store.logger.warning("a second circuit probe for one PostgreSQL store; this one does nothing")
            return
        }
        defer { circuit.unwatch() }
        while !Task.isCancelled {
            await circuit.waitUntilOpen()
            await closeOnceReachable()
        }
    }

    /// Probes until the database answers (then closes the circuit) or the task is cancelled. The
    /// pool is renewed only when a probe failed first: then its reconnection attempts failed too,
    /// and it may be waiting out a long backoff. A first probe that succeeds found the database
    /// merely slow, and the pool's connections still good.
    private func closeOnceReachable() async {
        var failed = false
        while !Task.isCancelled, store.circuit.isOpen {
            if await store.probe(within: Self.deadline) {
                store.closeCircuit(renewingPool: failed)
                return
            }
            failed = true
            do { try await Task.sleep(for: Self.interval) } catch { return }
        }
    }
}
