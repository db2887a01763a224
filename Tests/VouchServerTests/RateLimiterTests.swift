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
        for _ in 0..<8 { #expect(limiter.acquire(client: "a") == nil) }
        #expect(limiter.acquire(client: "a") == 1)
        uptime.advance(0.2)
        #expect(limiter.acquire(client: "a") == 1, "0.8 tokens: still a wait, of 0.05 s rounded up to 1")
        uptime.advance(0.05)
        #expect(limiter.acquire(client: "a") == nil, "one token back after 0.25 s at 4/s")
        #expect(limiter.acquire(client: "b") == nil, "clients have their own buckets")
    }

    @Test("the wait grows with the deficit: at 1/s, an empty bucket waits one second")
    func waits() async {
        let uptime = Uptime()
        let slow = RateLimiter(ratePerSecond: 1, clock: { uptime.now })
        #expect(slow.acquire(client: "a") == nil)
        #expect(slow.acquire(client: "a") == nil)
        #expect(slow.acquire(client: "a") == 1)
        uptime.advance(0.5)
        #expect(slow.acquire(client: "a") == 1)
        uptime.advance(0.5)
        #expect(slow.acquire(client: "a") == nil)
    }

    @Test("refill stops at the burst, and a clock that goes back refills nothing")
    func refillBounds() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 2, clock: { uptime.now })
        for _ in 0..<4 { #expect(limiter.acquire(client: "a") == nil) }
        uptime.advance(3600)
        for _ in 0..<4 { #expect(limiter.acquire(client: "a") == nil) }
        #expect(limiter.acquire(client: "a") != nil, "an hour of quiet refills the burst, not more")
        uptime.advance(-100)
        #expect(limiter.acquire(client: "a") != nil, "a backwards step adds no tokens")
    }

    @Test("the table of clients stays bounded: a client not seen for a generation is forgotten, one seen again is kept")
    func boundedTable() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 1, maximumClients: 4, clock: { uptime.now })
        for client in ["a", "b", "c", "d"] {
            #expect(limiter.acquire(client: client) == nil)
            #expect(limiter.acquire(client: client) == nil)
            uptime.advance(0.1)
        }
        // Generations of two: c made {a, b} the previous one, and d joined c in the current one.
        #expect(limiter.clientCount == 4)
        #expect(limiter.acquire(client: "a") == 1, "a was in the previous generation: kept, still empty")
        // a moved into a new current generation, which retired {b}: b is forgotten.
        #expect(limiter.clientCount == 3)
        #expect(limiter.acquire(client: "b") == nil, "b was forgotten, so it has a full bucket again")
        #expect(limiter.acquire(client: "c") == 1, "c is in the previous generation, still empty")
    }

    @Test("requests racing on many threads take exactly the burst between them; the table stays bounded")
    func concurrentAcquires() async {
        let uptime = Uptime()
        let one = RateLimiter(ratePerSecond: 50, clock: { uptime.now })
        let many = RateLimiter(ratePerSecond: 50, maximumClients: 8, clock: { uptime.now })
        let allowed = await withTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var allowed = 0
                    for round in 0..<100 {
                        if one.acquire(client: "storm") == nil { allowed += 1 }
                        _ = many.acquire(client: "client-\(task)-\(round)")
                    }
                    return allowed
                }
            }
            return await group.reduce(0, +)
        }
        #expect(allowed == 100, "the burst is twice the rate, and the clock stood still")
        #expect(many.clientCount <= 8)
    }

    @Test("a full table forgets a whole generation at once, the one not seen since, not one client per newcomer")
    func generationsForgottenAtOnce() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 1, maximumClients: 64, clock: { uptime.now })
        for client in 0..<64 {
            #expect(limiter.acquire(client: "active-\(client)") == nil)
            #expect(limiter.acquire(client: "active-\(client)") == nil)
        }
        #expect(limiter.clientCount == 64)
        #expect(limiter.acquire(client: "newcomer") == nil)
        #expect(limiter.clientCount == 32 + 1, "the older 32 went, and the newcomer came")
        #expect(limiter.acquire(client: "active-0") == nil, "the oldest was forgotten: a full bucket again")
        #expect(limiter.acquire(client: "active-63") == 1, "a recent one kept its empty bucket")
        for newcomer in 0..<29 { #expect(limiter.acquire(client: "later-\(newcomer)") == nil) }
        #expect(limiter.clientCount == 31 + 32, "room was made once, for the next newcomers too")
        #expect(limiter.acquire(client: "one-more") == nil)
        #expect(limiter.clientCount == 32 + 1, "a full generation retires the one before it")
    }

    @Test("a client that keeps asking is never forgotten, however many newcomers pass; the table stays bounded")
    func persistentClientKept() async {
        let uptime = Uptime()
        let limiter = RateLimiter(ratePerSecond: 1, maximumClients: 8, clock: { uptime.now })
        #expect(limiter.acquire(client: "hammer") == nil)
        #expect(limiter.acquire(client: "hammer") == nil)
        for newcomer in 0..<1_000 {
            #expect(limiter.acquire(client: "newcomer-\(newcomer)") == nil)
            #expect(limiter.acquire(client: "hammer") == 1, "still limited after \(newcomer + 1) newcomers")
            #expect(limiter.clientCount <= 8)
        }
    }
}
