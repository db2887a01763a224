import ServiceLifecycle

/// The loop of a background service: `body` every `seconds` until graceful shutdown.
enum Periodically {
    /// Shutdown cancels the sleep; that is the service's normal end, not a failure (a thrown
    /// CancellationError would make the service group report the server as failed: exit 1).
    static func run(
        every seconds: Int64, sleep: @escaping @Sendable (Duration) async throws -> Void,
        _ body: @escaping @Sendable () async -> Void
    ) async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await sleep(.seconds(seconds))
                } catch {
                    return
                }
                await body()
            }
        }
    }
}
