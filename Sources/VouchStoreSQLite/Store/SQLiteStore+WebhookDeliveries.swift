import Foundation
import VouchStore

extension SQLiteStore {
    /// A delivery's columns with its event's (`WebhookDelivery.init(row:)`).
    static let deliveryColumns = """
        d.endpoint_id, d.event_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_outcome,
        d.delivered_at, e.app_id, e.user_id, e.user_sequence, e.kind, e.at, e.data
        """

    /// On the one writer, so no two claims overlap; the lease is what keeps a delivery from a
    /// second worker while an attempt is under way, and what frees it when the worker died. The
    /// due deliveries are walked in the index's order (`webhook_deliveries_due`), never sorted:
    /// a backlog costs a claim only the rows it takes and the users' earlier events it skips. One
    /// query reads the claimed deliveries with their events and endpoints; each is leased by rowid.
    public func claimWebhookDeliveries(now: Int64, lease: Int64, limit: Int) async throws -> [ClaimedWebhookDelivery] {
        try await transaction("claimWebhookDeliveries", invalidating: .none) { db in
            let leaseUntil = now + lease
            let due = try db.rows(
                """
                SELECT d.rowid AS claimed_rowid, \(Self.deliveryColumns), w.url, w.secret
                FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                JOIN security_events e ON e.id = d.event_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= ?1 AND d.lease_until <= ?1 AND w.paused_at IS NULL
                  AND NOT EXISTS (
                      SELECT 1 FROM webhook_deliveries p
                      WHERE p.endpoint_id = d.endpoint_id AND p.user_id = d.user_id
                        AND p.position < d.position AND p.state = 'pending')
                ORDER BY d.next_attempt_at LIMIT ?2
                """, [.int64(now), .int64(Int64(max(0, limit)))])
            // One cached statement a row: a list of placeholders as long as the claim would be a
            // new statement for every length, crowding the statement cache.
            for row in due {
                try db.execute(
                    "UPDATE webhook_deliveries SET lease_until = ? WHERE rowid = ?", [.int64(leaseUntil), .int64(try row.int64("claimed_rowid"))])
            }
            return try due.map { row in
                ClaimedWebhookDelivery(
                    delivery: try WebhookDelivery(row: row), url: try row.text("url"), secret: try row.text("secret"),
                    leaseUntil: leaseUntil)
            }
        }
    }

    /// One transaction: the delivery's row, and the endpoint's pause when the attempt gives up.
    /// It shares its commit with whatever else waits (attempts finish by the hundred a second).
    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws {
        let writerSubscriptions = writerSubscriptions
        try await transaction("finishWebhookAttempt", invalidating: .none) { db in
            let (state, nextAttempt, deliveredAt): (WebhookDeliveryState, Int64?, Int64?) =
                switch attempt.verdict {
                case .delivered: (.delivered, nil, attempt.at)
                case .retry(let at): (.pending, at, nil)
                case .giveUp: (.failed, nil, nil)
                }
            let changed = try db.changes(
                """
                UPDATE webhook_deliveries SET state = ?1, attempts = attempts + 1, lease_until = 0,
                    next_attempt_at = COALESCE(?2, next_attempt_at), last_attempt_at = ?3, last_outcome = ?4,
                    delivered_at = ?5
                WHERE endpoint_id = ?6 AND event_id = ?7 AND state = 'pending'
                """,
                [
                    .text(state.rawValue), .optionalInt64(nextAttempt), .int64(attempt.at), .text(attempt.outcome),
                    .optionalInt64(deliveredAt), .uuid(attempt.endpointID), .uuid(attempt.eventID),
                ])
            if changed > 0, case .giveUp(let reason) = attempt.verdict {
                writerSubscriptions.forgetAll()
                try db.execute(
                    """
                    UPDATE webhook_endpoints SET pause_reason = CASE WHEN paused_at IS NULL THEN ?1 ELSE pause_reason END,
                        paused_at = COALESCE(paused_at, ?2)
                    WHERE id = ?3
                    """, [.text(reason), .int64(attempt.at / 1_000), .uuid(attempt.endpointID)])
            }
        }
    }

    public func webhookDeliveries(endpointID: UUID, appID: UUID, limit: Int) async throws -> [WebhookDelivery] {
        try await read("webhookDeliveries") { db in
            guard
                try !db.rows("SELECT 1 FROM webhook_endpoints WHERE id = ? AND app_id = ?", [.uuid(endpointID), .uuid(appID)])
                    .isEmpty
            else { throw StoreError.notFound }
            return try db.rows(
                """
                SELECT \(Self.deliveryColumns) FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id
                WHERE d.endpoint_id = ? ORDER BY d.position DESC LIMIT ?
                """, [.uuid(endpointID), .int64(Int64(max(0, limit)))]
            ).map(WebhookDelivery.init(row:))
        }
    }

    /// A lease under way is kept: the attempt in flight finishes first, then the replay is due.
    public func replayWebhookDelivery(endpointID: UUID, appID: UUID, eventID: UUID, now: Int64) async throws -> WebhookDelivery {
        try await exclusive("replayWebhookDelivery", invalidating: .none) { db in
            let changed = try db.changes(
                """
                UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?1
                WHERE endpoint_id = ?2 AND event_id = ?3
                  AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE app_id = ?4)
                """, [.int64(now), .uuid(endpointID), .uuid(eventID), .uuid(appID)])
            guard changed > 0,
                let row = try db.rows(
                    """
                    SELECT \(Self.deliveryColumns) FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id
                    WHERE d.endpoint_id = ? AND d.event_id = ?
                    """, [.uuid(endpointID), .uuid(eventID)]
                ).first
            else { throw StoreError.notFound }
            return try WebhookDelivery(row: row)
        }
    }
}
