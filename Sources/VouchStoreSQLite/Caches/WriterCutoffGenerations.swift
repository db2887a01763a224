import Foundation
import Synchronization

/// The cutoff generations of apps, providers and keys as the writer's transactions last read them,
/// so that a sign-in records its objects' generations without reading three rows each time.
///
/// It lives inside the transactions under `WriterUserCache`'s rule: read and changed only on the
/// writer, dropped by every write that can change a catalogue row (they all state `.everything`)
/// before that write's body runs, and dropped whole when a transaction rolls back. An entry is
/// therefore the row as the writer sees it now, and a sign-in after a cutoff in the writer's order
/// records the new generation, one before it the old one, which the cutoff counted and ended.
final class WriterCutoffGenerations: Sendable {
    enum Object: Hashable {
        case app(UUID)
        case provider(UUID)
        case key(UUID)
    }

    /// Far more than any catalogue: reaching it empties the cache.
    static let capacity = 4_096

    private let generations = Mutex<[Object: Int64]>([:])

    func generation(of object: Object) -> Int64? {
        generations.withLock { $0[object] }
    }

    func keep(_ generation: Int64, of object: Object) {
        generations.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll(keepingCapacity: true) }
            kept[object] = generation
        }
    }

    func forgetAll() {
        generations.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
