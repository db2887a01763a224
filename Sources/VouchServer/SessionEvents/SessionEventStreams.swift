import Foundation
import Synchronization

/// The open streams of `GET /events` (and `/events/sessions`) on this instance, each woken when
/// the log of endings has moved (the follower of the log calls `wakeAll`: the events of an ending
/// were written with it) so that it reads what is new.
/// Bounded: past `limit` streams a new one is refused rather than queued.
final class SessionEventStreams: Sendable {
    struct Subscription: Sendable {
        let id: UUID
        /// A wake-up per move of the log (collapsed: at most one waits).
        let wakes: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation
    }

    let limit: Int
    private let subscribers = Mutex<[UUID: AsyncStream<Void>.Continuation]>([:])
    private let onCountChange: @Sendable (Int) -> Void

    init(limit: Int, onCountChange: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.limit = limit
        self.onCountChange = onCountChange
    }

    /// A new subscription, or `nil` when `limit` streams are open already.
    func subscribe() -> Subscription? {
        let (wakes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let count: Int? = subscribers.withLock { subscribers in
            guard subscribers.count < limit else { return nil }
            subscribers[id] = continuation
            return subscribers.count
        }
        guard let count else { return nil }
        onCountChange(count)
        return Subscription(id: id, wakes: wakes, continuation: continuation)
    }

    func unsubscribe(_ subscription: Subscription) {
        let count = subscribers.withLock { subscribers in
            subscribers[subscription.id] = nil
            return subscribers.count
        }
        subscription.continuation.finish()
        onCountChange(count)
    }

    func wakeAll() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield() }
    }

    /// Ends every stream (graceful shutdown): each finishes its response.
    func finishAll() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
