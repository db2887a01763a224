import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// A delivery's columns with its event's (`WebhookDelivery.init(row:)`).
    static let deliveryColumns = """
        d.endpoint_id, d.event_id, d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_outcome,
        d.delivered_at, e.app_id, e.user_id, e.user_sequence, e.kind, e.at, e.data
        """

    /// One statement. Rows another instance is claiming are skipped (SKIP LOCKED), and a locked row
    /// is re-checked on its newest version, so a delivery leased meanwhile is not taken again. A
    /// user's later event waits while an earlier one is pending, leased or not, so each endpoint
    /// has at most one of a user's events in flight, whichever instance sends it.
    public func claimWebhookDeliveries(now: Int64, lease: Int64, limit: Int) async throws -> [ClaimedWebhookDelivery] {
        let leaseUntil = now + lease
        return try await single("claimWebhookDeliveries") { db in
            try await db.rows(
                """
                WITH due AS (
                    SELECT d.endpoint_id, d.event_id FROM webhook_deliveries d
                    JOIN webhook_endpoints w ON w.id = d.endpoint_id
                    WHERE d.state = 'pending' AND d.next_attempt_at <= \(now) AND d.lease_until <= \(now)
                      AND w.paused_at IS NULL
                      AND NOT EXISTS (
                          SELECT 1 FROM webhook_deliveries p
                          WHERE p.endpoint_id = d.endpoint_id AND p.user_id = d.user_id
                            AND p.position < d.position AND p.state = 'pending')
                    ORDER BY d.next_attempt_at LIMIT \(Int64(max(0, limit)))
                    FOR UPDATE OF d SKIP LOCKED
                ),
                claimed AS (
                    UPDATE webhook_deliveries x SET lease_until = \(leaseUntil) FROM due
                    WHERE x.endpoint_id = due.endpoint_id AND x.event_id = due.event_id
                    RETURNING x.*
                )
                SELECT \(unescaped: Self.deliveryColumns), w.url, w.secret
                FROM claimed d JOIN security_events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
                ORDER BY d.next_attempt_at
                """
            ).map { row in
                let record = PostgresRecordRow(row)
                return ClaimedWebhookDelivery(
                    delivery: try WebhookDelivery(row: record), url: try record.text("url"),
                    secret: try record.text("secret"), leaseUntil: leaseUntil)
            }
        }
    }

    /// One statement: the delivery's row, and the endpoint's pause when the attempt gives up.
    public func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws {
        let (state, nextAttempt, deliveredAt, pauseReason): (WebhookDeliveryState, Int64?, Int64?, String?) =
            switch attempt.verdict {
            case .delivered: (.delivered, nil, attempt.at, nil)
            case .retry(let at): (.pending, at, nil, nil)
            case .giveUp(let reason): (.failed, nil, nil, reason)
            }
        try await single("finishWebhookAttempt") { db in
            try await db.execute(
                """
                WITH finished AS (
                    UPDATE webhook_deliveries SET state = \(state.rawValue), attempts = attempts + 1, lease_until = 0,
                        next_attempt_at = COALESCE(\(nextAttempt), next_attempt_at), last_attempt_at = \(attempt.at),
                        last_outcome = \(attempt.outcome), delivered_at = \(deliveredAt)
                    WHERE endpoint_id = \(attempt.endpointID) AND event_id = \(attempt.eventID) AND state = 'pending'
                    RETURNING endpoint_id
                )
                UPDATE webhook_endpoints SET
                    pause_reason = CASE WHEN paused_at IS NULL THEN \(pauseReason) ELSE pause_reason END,
                    paused_at = COALESCE(paused_at, \(attempt.at / 1_000))
                WHERE \(pauseReason)::text IS NOT NULL AND id IN (SELECT endpoint_id FROM finished)
                """)
        }
    }

    public func webhookDeliveries(endpointID: UUID, appID: UUID, limit: Int) async throws -> [WebhookDelivery] {
        try await transaction("webhookDeliveries") { db in
            guard
                try await !db.rows("SELECT 1 FROM webhook_endpoints WHERE id = \(endpointID) AND app_id = \(appID)").isEmpty
            else { throw StoreError.notFound }
            return try await db.rows(
                """
                SELECT \(unescaped: Self.deliveryColumns) FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id
                WHERE d.endpoint_id = \(endpointID) ORDER BY d.position DESC LIMIT \(Int64(max(0, limit)))
                """
            ).map { try WebhookDelivery(row: PostgresRecordRow($0)) }
        }
    }

    /// A lease under way is kept: the attempt in flight finishes first, then the replay is due.
    public func replayWebhookDelivery(endpointID: UUID, appID: UUID, eventID: UUID, now: Int64) async throws -> WebhookDelivery {
        try await single("replayWebhookDelivery") { db in
            let rows = try await db.rows(
                """
                WITH replayed AS (
                    UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = \(now)
                    WHERE endpoint_id = \(endpointID) AND event_id = \(eventID)
                      AND endpoint_id IN (SELECT id FROM webhook_endpoints WHERE app_id = \(appID))
                    RETURNING *
                )
                SELECT \(unescaped: Self.deliveryColumns) FROM replayed d JOIN security_events e ON e.id = d.event_id
                """)
            guard let row = rows.first else { throw StoreError.notFound }
            return try WebhookDelivery(row: PostgresRecordRow(row))
        }
    }
}
