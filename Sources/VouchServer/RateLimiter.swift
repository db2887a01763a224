import Foundation
import Synchronization

/// Per-client token buckets for the unauthenticated, write-causing routes (`POST /nonces`,
/// `POST /sessions`): `rate` requests a second, bursts up to `burst`.
///
/// The table of clients is bounded: past `maximumClients`, buckets that have refilled (clients
/// that went quiet) are forgotten first, then the oldest sixteenth, so a flood of spoofed or
/// rotating addresses costs bounded memory, and a pass over the table once per sixteenth of it.
///
/// A lock rather than an actor: a look-up is a few hundred nanoseconds of arithmetic on every
/// rate-limited request, where a hop to an actor and back made each of them queue a job and
/// switch executors twice, and under a storm wait its turn behind the other requests' hops.
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
    let maximumClients: Int
    private let clock: Clock
    private let buckets = Mutex<[String: Bucket]>([:])

    init(ratePerSecond: Int, maximumClients: Int = 100_000, clock: @escaping Clock = RateLimiter.uptime) {
        self.rate = Double(ratePerSecond)
        self.burst = Double(ratePerSecond * 2)
        self.maximumClients = maximumClients
        self.clock = clock
    }

    /// Clients with a bucket now (for tests: the table's bound).
    var clientCount: Int { buckets.withLock { $0.count } }

    /// Takes one token for `client`; returns `nil` when allowed, or the whole seconds to wait.
    func acquire(client: String) -> Int? {
        buckets.withLock { buckets in
            // Read under the lock, as the actor did: a bucket's time never steps backwards.
            let now = clock()
            var bucket = buckets[client] ?? Bucket(tokens: burst, updatedAt: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updatedAt) * rate)
            bucket.updatedAt = now
            guard bucket.tokens >= 1 else {
                buckets[client] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            if buckets[client] == nil, buckets.count >= maximumClients { evict(from: &buckets, now: now) }
            buckets[client] = bucket
            return nil
        }
    }

    /// Clients forgotten at once when none had gone quiet: a sixteenth of the table, so that a
    /// flood of new addresses pays the pass over the whole table once per sixteenth of it rather
    /// than on every request (under the lock, which every limited request takes).
    private var evictionBatch: Int { max(1, maximumClients / 16) }

    private func evict(from buckets: inout [String: Bucket], now: Double) {
        let refilled = buckets.filter { min(burst, $0.value.tokens + max(0, now - $0.value.updatedAt) * rate) >= burst }
        for client in refilled.keys { buckets[client] = nil }
        guard buckets.count >= maximumClients else { return }
        let oldest = buckets.sorted { $0.value.updatedAt < $1.value.updatedAt }.prefix(evictionBatch)
        for (client, _) in oldest { buckets[client] = nil }
    }
}
