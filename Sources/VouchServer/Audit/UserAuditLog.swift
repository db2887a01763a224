import Foundation
import Logging
import VouchStore

/// Writes the audit entries of users' own actions on their sessions (kind `user`): the actor is
/// `user`, the object the user. Like an admin entry, it is written before the answer goes out,
/// and a failed write is logged and counted, never thrown (the action has happened).
struct UserAuditLog: Sendable {
    let store: any Store
    let metrics: ServerMetrics

    func record(action: String, session: SessionRecord, at now: Int64, note: String, logger: Logger) async {
        let entry = NewAuditEntry(
            at: now, kind: .user, actor: "user", action: action, outcome: "ok", appID: session.appID,
            objectType: "user", objectID: session.userID, note: note)
        do {
            try await store.appendAudit([entry])
        } catch {
            metrics.recordAuditDropped(kind: .user, count: 1)
            logger.warning(
                "audit log write failed; user action not recorded",
                metadata: ["action": "\(action)", "error_type": "\(type(of: error))"])
        }
    }
}
