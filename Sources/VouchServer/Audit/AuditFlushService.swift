import Logging
import ServiceLifecycle
import VouchStore

/// Writes the counted rejected sign-ins every `intervalSeconds`, and once more on graceful
/// shutdown. Hummingbird shuts its services down after the HTTP server, in reverse order of
/// registration, so the last flush comes after the last in-flight request was answered and
/// before `vouch serve` closes the store.
struct AuditFlushService: Service, CustomStringConvertible {
    let log: SignInRejectionLog
    let store: any Store
    /// On the machine's clock, not the injectable `ServerClocks.sleep`, which drives the
    /// housekeeping purge alone (tests trigger purges through it). Tests need not wait for a
    /// flush: `GET /admin/audit` flushes first.
    let intervalSeconds: Int64
    let logger: Logger

    var description: String { "AuditFlushService(every \(intervalSeconds) s)" }

    func run() async throws {
        await Periodically.run(every: intervalSeconds, sleep: { try await Task.sleep(for: $0) }) { await log.flush(to: store, logger: logger) }
        await log.flush(to: store, logger: logger)
    }
}
