import Logging
import PostgresNIO
import VouchStore

/// The store's side of its circuit: opening it on a connection-level failure, the probe's one
/// attempt, and closing it again.
extension PostgresStore {
    /// Opens the circuit for a connection-level failure of an operation admitted in `spell`.
    func tripCircuit(in spell: Circuit.Spell, operation: String, reason: String) {
        guard circuit.trip(in: spell, reason: "\(operation): \(reason)") else { return }
        logger.warning(
            "PostgreSQL unreachable: every operation fails at once until the database answers again",
            metadata: ["operation": "\(operation)", "error": "\(reason)"])
    }

    /// One probe: a fresh connection, `SELECT 1`, closed again, all within `deadline`.
    ///
    /// - Returns: whether the database answered.
    func probe(within deadline: Duration) async -> Bool {
        let configuration = probeConfiguration
        let logger = self.logger
        do {
            try await deadlines.run(deadline, operation: "probe") {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                do {
                    _ = try await connection.query("SELECT 1", logger: logger).collect()
                } catch {
                    try? await connection.close()
                    throw error
                }
                try await connection.close()
            }
            return true
        } catch {
            logger.debug("PostgreSQL probe failed", metadata: ["error": "\(StoreError.from(postgres: error))"])
            return false
        }
    }

    /// Closes the circuit after a successful probe, on a fresh pool when `renewingPool`.
    func closeCircuit(renewingPool: Bool) {
        if renewingPool { pool.renew() }
        guard let outage = circuit.close() else { return }
        logger.info(
            "PostgreSQL reachable again: operations run again",
            metadata: [
                "unreachable_for": "\(outage)", "fresh_pool": "\(renewingPool)",
            ])
    }
}
