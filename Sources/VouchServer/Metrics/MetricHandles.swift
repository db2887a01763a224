import CoreMetrics
import Synchronization

/// Metric handles by their labels, each made once.
///
/// Making a swift-metrics handle asks the Prometheus factory, which looks the series up in its
/// registry under a lock and builds its label arrays: a measurable share of a request that
/// records three of them. The label sets are bounded (route patterns, methods, statuses,
/// reasons), and the cache starts over should it ever hold more than `capacity` anyway.
final class MetricHandles<Key: Hashable & Sendable, Handle: Sendable>: Sendable {
    static var capacity: Int { 4096 }

    private let handles = Mutex<[Key: Handle]>([:])

    func handle(_ key: Key, make: () -> Handle) -> Handle {
        if let handle = handles.withLock({ $0[key] }) { return handle }
        let made = make()
        handles.withLock { handles in
            if handles.count >= Self.capacity { handles.removeAll(keepingCapacity: true) }
            handles[key] = made
        }
        return made
    }
}

/// The labels of one HTTP request's series.
struct RequestSeries: Hashable, Sendable {
    let method: String
    let route: String
    let status: Int
}
