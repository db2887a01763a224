import Foundation
import NIOCore
import Synchronization

/// Connections kept open after an answer, by destination, so that an endpoint's next delivery
/// does not pay a TCP (and TLS) handshake again. Bounded: a few idle connections per destination,
/// a few hundred in all, each dropped after `idleTimeout` unused; a connection that is closed
/// meanwhile is found so when taken and dropped.
final class OutboundConnectionPool: Sendable {
    /// One destination: the checked address, and the host and scheme the connection was made for
    /// (TLS names the host: a connection is never reused for another host on the same address).
    struct Key: Hashable, Sendable {
        let address: String
        let host: String
        let port: Int
        let tls: Bool

        init(_ destination: OutboundDestination) {
            address = "\(destination.address)"
            host = destination.url.host
            port = destination.url.port
            tls = destination.url.scheme == "https"
        }
    }

    private struct Idle: Sendable {
        let channel: any Channel
        let since: ContinuousClock.Instant
    }

    let maximumPerDestination: Int
    let maximumTotal: Int
    let idleTimeout: Duration
    private let idle = Mutex<[Key: [Idle]]>([:])
    private let opened = Mutex(0)

    init(maximumPerDestination: Int = 32, maximumTotal: Int = 256, idleTimeout: Duration = .seconds(20)) {
        self.maximumPerDestination = maximumPerDestination
        self.maximumTotal = maximumTotal
        self.idleTimeout = idleTimeout
    }

    /// The most recently kept open connection to `key`, if one is still open and fresh.
    func take(_ key: Key) -> (any Channel)? {
        let now = ContinuousClock.now
        var stale: [any Channel] = []
        let found: (any Channel)? = idle.withLock { idle in
            while var kept = idle[key], let last = kept.popLast() {
                idle[key] = kept.isEmpty ? nil : kept
                if last.channel.isActive, now - last.since < idleTimeout { return last.channel }
                stale.append(last.channel)
            }
            return nil
        }
        for channel in stale { channel.close(promise: nil) }
        return found
    }

    /// Keeps `channel` for the next request to `key`, or closes it when the pool is full.
    func give(_ channel: any Channel, _ key: Key) {
        let now = ContinuousClock.now
        var closing: [any Channel] = []
        idle.withLock { idle in
            // Expired connections anywhere go first, so that the bound counts live ones only.
            for (key, kept) in idle {
                let fresh = kept.filter { now - $0.since < idleTimeout && $0.channel.isActive }
                if fresh.count != kept.count {
                    closing += kept.filter { !(now - $0.since < idleTimeout && $0.channel.isActive) }.map(\.channel)
                    idle[key] = fresh.isEmpty ? nil : fresh
                }
            }
            let total = idle.values.reduce(0) { $0 + $1.count }
            if (idle[key]?.count ?? 0) < maximumPerDestination, total < maximumTotal {
                idle[key, default: []].append(Idle(channel: channel, since: now))
            } else {
                closing.append(channel)
            }
        }
        for channel in closing { channel.close(promise: nil) }
    }

    /// Counts a new connection (`openedCount`).
    func recordOpened() { opened.withLock { $0 += 1 } }

    /// How many connections were opened through this pool's client since it was made.
    var openedCount: Int { opened.withLock { $0 } }

    /// How many connections are kept now.
    var count: Int { idle.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Closes every kept connection (shutdown).
    func closeAll() {
        let all = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle.values.flatMap { $0.map(\.channel) }
        }
        for channel in all { channel.close(promise: nil) }
    }
}
