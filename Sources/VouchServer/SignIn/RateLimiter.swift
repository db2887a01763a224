import Foundation
import Synchronization
import VouchSupport

/// Per-client token buckets for the unauthenticated, write-causing routes (`POST /nonces`,
/// `POST /sessions`): `rate` requests a second, bursts up to `burst`.
///
/// The table of clients is bounded, and forgetting costs the same whatever the flood: clients are
/// kept in two generations of up to half of `maximumClients` each (`TwoGenerations`). A client's
/// request moves it into the current generation; when that is full, the previous generation
/// (everyone not seen since) is forgotten at once, and the current one becomes the previous. So a
/// client is forgotten only once `maximumClients / 2` others have been seen since its last
/// request, and a flood of spoofed or rotating addresses (an IPv6 prefix has plenty) costs
/// bounded memory and a constant amount of work a request. The generation let go is freed after
/// the lock is released; nothing ever walks the whole table under the lock.
///
/// A lock rather than an actor: a look-up is a few hundred nanoseconds of arithmetic on every
/// rate-limited request, where a hop to an actor and back queues a job and switches executors
/// twice, and under a storm waits its turn behind the other requests' hops.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Double
    }

    /// Seconds on a monotonic clock: uptime by default, a hand-moved clock in tests, so that the
    /// bucket arithmetic is tested without depending on how fast requests are made.
    typealias Clock = @Sendable () -> Double
    static let uptime: Clock = { ProcessInfo.processInfo.systemUptime }

    let rate: Double
    let burst: Double
    private let clock: Clock
    /// The clients, in generations of half the `maximumClients` the limiter was made with.
    private let table: Mutex<TwoGenerations<String, Bucket>>

    /// - Parameter maximumClients: at least 2 (two generations of at least one).
    init(ratePerSecond: Int, maximumClients: Int = 100_000, clock: @escaping Clock = RateLimiter.uptime) {
        precondition(maximumClients >= 2, "two generations of at least one client each")
        self.rate = Double(ratePerSecond)
        self.burst = Double(ratePerSecond * 2)
        self.table = Mutex(TwoGenerations(generationSize: max(1, maximumClients / 2)))
        self.clock = clock
    }

    /// Clients with a bucket now (for tests: the table's bound).
    var clientCount: Int { table.withLock { $0.count } }

    /// Takes one token for `client`; returns `nil` when allowed, or the whole seconds to wait.
    func acquire(client: String) -> Int? {
        let (wait, forgotten) = table.withLock { table -> (Int?, ([String: Bucket], [String: Bucket])) in
            // Read under the lock, as the actor did: a bucket's time never steps backwards.
            let now = clock()
            let (kept, letGo) = table.value(for: client)
            var bucket = kept ?? Bucket(tokens: burst, updatedAt: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updatedAt) * rate)
            bucket.updatedAt = now
            var wait: Int?
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
            } else {
                wait = max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            return (wait, (letGo, table.set(bucket, for: client)))
        }
        // The generation let go (up to 50 000 buckets) is freed here, after the lock.
        withExtendedLifetime(forgotten) {}
        return wait
    }
}
