import Foundation

/// Every source of time the server reads, in one value so that tests can replace all of them:
/// session expiry, token times and the purge schedule move when a test says so, and the rate
/// limiter's arithmetic does not depend on how fast the machine answers.
public struct ServerClocks: Sendable {
    /// Unix seconds: token `iat`/`exp`, session expiry, nonce expiry.
    public var now: @Sendable () -> Int64
    /// Seconds on a monotonic clock: the rate limiter's buckets.
    public var uptime: @Sendable () -> Double
    /// Waits between background purges.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        now: @escaping @Sendable () -> Int64, uptime: @escaping @Sendable () -> Double,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.now = now
        self.uptime = uptime
        self.sleep = sleep
    }

    /// The machine's clocks.
    public static let system = ServerClocks(
        now: { Int64(Date().timeIntervalSince1970) },
        uptime: { ProcessInfo.processInfo.systemUptime },
        sleep: { try await Task.sleep(for: $0) })
}
