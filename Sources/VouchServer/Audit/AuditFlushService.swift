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
    let intervalSeconds: Int64
    let clocks: ServerClocks
    let logger: Logger

    var description: String { "AuditFlushService(every \(intervalSeconds) s)" }

    func run() async throws {
        await Periodically.run(every: intervalSeconds, clocks: clocks) { await log.flush(to: store, logger: logger) }
        await log.flush(to: store, logger: logger)
    }
}
