import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import VouchStore

/// Counts the sign-ins each fetched key verified, by hour, in memory, and adds them to the
/// store's counts every few seconds and at shutdown: a sign-in writes no row of its own for it,
/// and instances meet on a key's row only at their flushes.
final class SourceKeyUseCounter: Sendable {
    private let counts = Mutex<[SourceKeyUse: Int64]>([:])

    func count(providerID: UUID, keyID: String, at time: Int64) {
        let key = SourceKeyUse(providerID: providerID, keyID: keyID, hour: SourceKeyUse.hour(of: time), count: 0)
        counts.withLock { $0[key, default: 0] += 1 }
    }

    /// The counts since the last call, emptied.
    func take() -> [SourceKeyUse] {
        counts.withLock { counts in
            defer { counts.removeAll() }
            return counts.map { key, count in
                var use = key
                use.count = count
                return use
            }
        }
    }

    /// Adds the counts so far to the store's; on failure they are kept for the next flush.
    func flush(to store: any Store) async throws {
        let uses = take()
        guard !uses.isEmpty else { return }
        do {
            try await store.addSourceKeyUses(uses)
        } catch {
            restore(uses)
            throw error
        }
    }

    /// Puts counts back after a failed write, so that none is lost.
    private func restore(_ uses: [SourceKeyUse]) {
        counts.withLock { counts in
            for use in uses {
                var key = use
                key.count = 0
                counts[key, default: 0] += use.count
            }
        }
    }
}

/// Writes `SourceKeyUseCounter`'s counts every `intervalSeconds` and once more on graceful
/// shutdown (after the HTTP server, like `AuditFlushService`), on the machine's clock.
struct SourceKeyUseFlushService: Service, CustomStringConvertible {
    let counter: SourceKeyUseCounter
    let store: any Store
    let intervalSeconds: Int64
    let logger: Logger

    var description: String { "SourceKeyUseFlushService(every \(intervalSeconds) s)" }

    func run() async throws {
        await Periodically.run(every: intervalSeconds, sleep: { try await Task.sleep(for: $0) }) { await flush() }
        await flush()
    }

    func flush() async {
        do {
            try await counter.flush(to: store)
        } catch {
            logger.warning("could not write fetched keys' sign-in counts", metadata: ["error": "\(error)"])
        }
    }
}
