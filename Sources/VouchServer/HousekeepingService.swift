import Logging
import ServiceLifecycle
import VouchStore

/// Purges expired rows in the background, so used nonces and replay entries never outgrow the
/// ten minutes (or the token lifetime) they matter for.
///
/// It holds only what it needs: ServiceLifecycle logs every service by printing it, so a service
/// must never carry a secret (the whole configuration holds the admin token).
struct HousekeepingService: Service, CustomStringConvertible {
    let store: any Store
    let purgeIntervalSeconds: Int64
    let expiredSessionGraceSeconds: Int64
    let clock: @Sendable () -> Int64
    let logger: Logger

    var description: String { "HousekeepingService(every \(purgeIntervalSeconds) s)" }

    func run() async throws {
        // Shutdown cancels the sleep; that is this service's normal end, not a failure (a thrown
        // CancellationError would make the service group report the server as failed: exit 1).
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .seconds(purgeIntervalSeconds))
                } catch {
                    return
                }
                do {
                    let removed = try await store.purgeExpired(
                        now: clock(), sessionGraceSeconds: expiredSessionGraceSeconds)
                    if removed > 0 { logger.info("purged expired rows", metadata: ["rows": "\(removed)"]) }
                } catch {
                    logger.warning("purge failed; will retry", metadata: ["error_type": "\(type(of: error))"])
                }
            }
        }
    }
}
