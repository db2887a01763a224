import Logging
import ServiceLifecycle
import VouchStore

/// Purges expired rows in the background, so used nonces and replay entries never outgrow the
/// ten minutes (or the token lifetime) they matter for.
struct HousekeepingService: Service {
    let store: any Store
    let configuration: ServerConfiguration
    let clock: @Sendable () -> Int64
    let logger: Logger

    func run() async throws {
        // Shutdown cancels the sleep; that is this service's normal end, not a failure (a thrown
        // CancellationError would make the service group report the server as failed: exit 1).
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .seconds(configuration.purgeIntervalSeconds))
                } catch {
                    return
                }
                do {
                    let removed = try await store.purgeExpired(
                        now: clock(), sessionGraceSeconds: configuration.expiredSessionGraceSeconds)
                    if removed > 0 { logger.info("purged expired rows", metadata: ["rows": "\(removed)"]) }
                } catch {
                    logger.warning("purge failed; will retry", metadata: ["error_type": "\(type(of: error))"])
                }
            }
        }
    }
}
