import Foundation
import Logging
import Synchronization
import VouchProtocol
import VouchStore

/// Rejected sign-ins, counted in memory per (app, reason) and written to the audit log in one
/// batch per flush.
///
/// A storm of bad tokens must cost neither a database write per request nor time on the
/// request's path: `record` only bumps a counter under a lock, and a flush writes one entry per
/// (app, reason) pair seen since the last flush, however many rejections there were. The pairs
/// held between flushes are bounded (`capacity`); a rejection that would need a new pair past it
/// is dropped and counted in `vouch_audit_dropped_total`. Both parts of the key are bounded by
/// the server, not the sender: the app was looked up before the token was judged, and the reason
/// is one of §5.4's. Nothing from the token (not even its user id) is kept.
final class SignInRejectionLog: Sendable {
    private struct Key: Hashable {
        let appID: UUID
        let reason: String
    }

    private struct Tally {
        var firstAt: Int64
        var count: Int64
    }

    static let defaultCapacity = 1024

    private let pending = Mutex<[Key: Tally]>([:])
    private let capacity: Int
    private let metrics: ServerMetrics

    init(capacity: Int = SignInRejectionLog.defaultCapacity, metrics: ServerMetrics) {
        self.capacity = capacity
        self.metrics = metrics
    }

    /// Counts one rejection; never waits on I/O.
    func record(appID: UUID, reason: RejectionReason, at now: Int64) {
        let key = Key(appID: appID, reason: reason.rawValue)
        let kept = pending.withLock { pending -> Bool in
            if pending[key] != nil {
                pending[key]!.count += 1
                return true
            }
            guard pending.count < capacity else { return false }
            pending[key] = Tally(firstAt: now, count: 1)
            return true
        }
        if !kept { metrics.recordAuditDropped(kind: .signInRejected, count: 1) }
    }

    /// Takes everything counted so far, as audit entries (oldest window first).
    func drain() -> [NewAuditEntry] {
        let taken = pending.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        return taken.map { key, tally in
            NewAuditEntry(
                at: tally.firstAt, kind: .signInRejected, actor: nil, action: AuditAction.signInRejected,
                outcome: key.reason, appID: key.appID, count: tally.count)
        }
        .sorted { ($0.at, $0.appID?.uuidString ?? "", $0.outcome) < ($1.at, $1.appID?.uuidString ?? "", $1.outcome) }
    }

    /// Writes what was counted. A failed write drops the batch (counted, logged as a warning),
    /// rather than letting a database outage grow memory.
    func flush(to store: any Store, logger: Logger) async {
        let entries = drain()
        guard !entries.isEmpty else { return }
        do {
            try await store.appendAudit(entries)
        } catch {
            metrics.recordAuditDropped(kind: .signInRejected, count: entries.reduce(0) { $0 + Int($1.count) })
            logger.warning(
                "audit log write failed; rejected sign-ins dropped",
                metadata: [
                    "entries": "\(entries.count)", "error_type": "\(type(of: error))",
                ])
        }
    }
}
