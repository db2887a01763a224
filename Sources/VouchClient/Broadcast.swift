import Foundation
import Synchronization

/// Fans values out to every subscribed `AsyncStream`, in the order they are published (the
/// client actor publishes, so the order is that of its state changes). The client's events and
/// its states are each one.
///
/// With a latest value (`replaying:`) a new subscriber receives it first, under the same lock as
/// its registration so that no change falls in between, and a value equal to the latest is not
/// published again: a state. Without one every value goes out: events.
final class Broadcast<Element: Sendable & Equatable>: Sendable {
    private struct Subscribers {
        var latest: Element?
        var streams: [UUID: AsyncStream<Element>.Continuation] = [:]
    }

    private let subscribers: Mutex<Subscribers>
    private let replays: Bool
    private let buffered: Int

    /// - Parameters:
    ///   - initial: the latest value to replay; nil for a broadcast that replays nothing.
    ///   - buffered: how many values a slow subscriber may fall behind (the newest are kept).
    init(replaying initial: Element?, buffered: Int) {
        subscribers = Mutex(Subscribers(latest: initial))
        replays = initial != nil
        self.buffered = buffered
    }

    /// The value a new subscriber starts with (a replaying broadcast only).
    var latest: Element? { subscribers.withLock { $0.latest } }

    func subscribe() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(buffered))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.streams.removeValue(forKey: id) } }
        subscribers.withLock {
            $0.streams[id] = continuation
            if replays, let latest = $0.latest { continuation.yield(latest) }
        }
        return stream
    }

    func publish(_ value: Element) {
        subscribers.withLock {
            if replays {
                guard $0.latest != value else { return }
                $0.latest = value
            }
            for continuation in $0.streams.values { continuation.yield(value) }
        }
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.streams.values) }) { continuation.finish() }
    }
}
