import Foundation
import Synchronization
import Testing
@testable import VouchServer

/// The token bucket's arithmetic on a clock the test moves: no test here depends on how fast the
/// machine is.
@Suite("Rate limiter arithmetic")
struct RateLimiterTests {
    final class Uptime: Sendable {
        private let seconds = Mutex<Double>(1000)
        var now: Double { seconds.withLock { $0 } }
        func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
    }

    @Test("a burst of twice the rate, then the wait until one token is back, rounded up")
    func burstThenWait() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 4, clock: { uptime.now })
        for _ in 0..<8 { #expect(await limiter.acquire(client: "a") == nil) }
        #expect(await limiter.acquire(client: "a") == 1)
        uptime.advance(0.2)
        #expect(await limiter.acquire(client: "a") == 1, "0.8 tokens: still a wait, of 0.05 s rounded up to 1")
        uptime.advance(0.05)
        #expect(await limiter.acquire(client: "a") == nil, "one token back after 0.25 s at 4/s")
        #expect(await limiter.acquire(client: "b") == nil, "clients have their own buckets")
    }

    @Test("the wait grows with the deficit: at 1/s, an empty bucket waits one second")
    func waits() async {
        let uptime = Uptime()
        let slow = RateLimiter(ratePerSecond: 1, clock: { uptime.now })
        #expect(await slow.acquire(client: "a") == nil)
        #expect(await slow.acquire(client: "a") == nil)
        #expect(await slow.acquire(client: "a") == 1)
        uptime.advance(0.5)
        #expect(await slow.acquire(client: "a") == 1)
        uptime.advance(0.5)
        #expect(await slow.acquire(client: "a") == nil)
    }

    @Test("refill stops at the burst, and a clock that goes back refills nothing")
    func refillBounds() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 2, clock: { uptime.now })
        for _ in 0..<4 { #expect(await limiter.acquire(client: "a") == nil) }
        uptime.advance(3600)
        for _ in 0..<4 { #expect(await limiter.acquire(client: "a") == nil) }
        #expect(await limiter.acquire(client: "a") != nil, "an hour of quiet refills the burst, not more")
        uptime.advance(-100)
        #expect(await limiter.acquire(client: "a") != nil, "a backwards step adds no tokens")
    }

    @Test("the table of clients stays bounded: refilled clients go first, then the oldest")
    func boundedTable() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 1, maximumClients: 3, clock: { uptime.now })
        for client in ["a", "b", "c"] {
            #expect(await limiter.acquire(client: client) == nil)
            #expect(await limiter.acquire(client: client) == nil)
            uptime.advance(0.1)
        }
        // All three are empty; a fourth client evicts the oldest (a), which then starts afresh.
        #expect(await limiter.acquire(client: "d") == nil)
        #expect(await limiter.acquire(client: "b") == 1, "b kept its empty bucket")
        #expect(await limiter.acquire(client: "a") == nil, "a was forgotten, so it has a full bucket again")
    }
}
