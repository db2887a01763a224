import ServiceLifecycle
import VouchResourceServer

/// `SessionEndingsFollower` as a swift-service-lifecycle `Service`, so that a Hummingbird
/// application runs it beside its server (`app.addServices(...)`) and stops it on graceful shutdown.
public struct SessionEndingsService: Service {
    public let follower: SessionEndingsFollower

    /// - Parameter follower: the follower to run; it keeps its state (position, connection) for checks.
    public init(_ follower: SessionEndingsFollower) {
        self.follower = follower
    }

    /// Follows the stream until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await follower.run()
        }
    }
}
