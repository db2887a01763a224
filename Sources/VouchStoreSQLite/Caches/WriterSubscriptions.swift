import Foundation
import Synchronization

/// Which event kinds each app's unpaused webhook endpoints subscribe to, as the writer's
/// transactions last read them, so that a sign-in of an app nobody listens to writes no event
/// and reads nothing to learn so.
///
/// It lives inside the transactions under `WriterUserCache`'s rule: read and changed only on the
/// writer, dropped by every write to `webhook_endpoints` before that write's body runs, and
/// dropped whole when a transaction rolls back. An entry is therefore the table as the writer
/// sees it now.
final class WriterSubscriptions: Sendable {
    /// Far more apps than one store holds: reaching it empties the cache.
    static let capacity = 4_096

    private let kinds = Mutex<[UUID: Set<String>]>([:])

    /// The kinds the app's unpaused endpoints subscribe to, read and kept when not kept.
    func kinds(of appID: UUID, orRead read: () throws -> Set<String>) rethrows -> Set<String> {
        if let kept = kinds.withLock({ $0[appID] }) { return kept }
        let read = try read()
        kinds.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll(keepingCapacity: true) }
            kept[appID] = read
        }
        return read
    }

    func forgetAll() {
        kinds.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
