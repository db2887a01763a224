import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    /// `vouch_record_event` (migration 8) in the caller's transaction: the event and one pending
    /// delivery per unpaused endpoint of the app that subscribes to its kind, or nothing. A user's
    /// event takes the user's row lock to number it: callers hold it already, or take it before
    /// the log of endings' lock (`SessionEndingLog`).
    static func recordEvent(
        _ kind: SecurityEventKind, appID: UUID, userID: String?, at: Int64, data: String, _ db: PostgresRunner
    ) async throws {
        try await db.execute("SELECT vouch_record_event(\(appID), \(userID), \(kind.rawValue), \(at), \(data))")
    }

    /// `recordEvent` for each app the provider is bound to (a key's or a provider's event).
    static func recordEvent(
        _ kind: SecurityEventKind, providerID: UUID, at: Int64, data: String, _ db: PostgresRunner
    ) async throws {
        try await db.execute(
            """
            SELECT vouch_record_event(app_id, NULL, \(kind.rawValue), \(at), \(data))
            FROM provider_apps WHERE provider_id = \(providerID)
            """)
    }

    /// Only events of transactions older than every transaction running now are shown, in
    /// (transaction, position) order: any event that commits later belongs to a transaction at
    /// least as new as the oldest one running, so it sorts above every cursor this returns.
    public func securityEvents(
        appID: UUID, after cursor: SecurityEventCursor, kinds: [SecurityEventKind]?, limit: Int
    ) async throws -> [(cursor: SecurityEventCursor, event: SecurityEventRecord)] {
        let kindNames = kinds?.map(\.rawValue)
        return try await single("securityEvents") { db in
            try await db.rows(
                """
                SELECT *, xid::text::bigint AS transaction FROM security_events
                WHERE app_id = \(appID) AND (xid, position) > (\(String(cursor.transaction))::xid8, \(cursor.position))
                  AND xid < pg_snapshot_xmin(pg_current_snapshot())
                  AND (\(kindNames)::text[] IS NULL OR kind = ANY (\(kindNames)::text[]))
                ORDER BY xid, position LIMIT \(Int64(max(0, limit)))
                """
            ).map { row in
                let record = PostgresRecordRow(row)
                let cursor = SecurityEventCursor(transaction: try record.int64("transaction"), position: try record.int64("position"))
                return (cursor, try SecurityEventRecord(row: record))
            }
        }
    }

    /// Just before the app's first event at or after `since` of a finished transaction; else
    /// after the last such event (an event still being written sorts above both).
    public func securityEventCursor(appID: UUID, since: Int64) async throws -> SecurityEventCursor {
        try await single("securityEventCursor") { db in
            let first = try await db.rows(
                """
                SELECT xid::text::bigint AS transaction, position - 1 AS position FROM security_events
                WHERE app_id = \(appID) AND at >= \(since) AND xid < pg_snapshot_xmin(pg_current_snapshot())
                ORDER BY xid, position LIMIT 1
                """)
            let last = try await db.rows(
                """
                SELECT xid::text::bigint AS transaction, position FROM security_events
                WHERE app_id = \(appID) AND xid < pg_snapshot_xmin(pg_current_snapshot())
                ORDER BY xid DESC, position DESC LIMIT 1
                """)
            guard let row = (first.first ?? last.first).map(PostgresRecordRow.init) else { return .start }
            return SecurityEventCursor(transaction: try row.int64("transaction"), position: try row.int64("position"))
        }
    }

    @discardableResult
    public func purgeSecurityEvents(before: Int64) async throws -> Int {
        try await single("purgeSecurityEvents") { db in
            let rows = try await db.rows(
                """
                WITH gone AS (
                    DELETE FROM security_events e
                    WHERE e.at < \(before) AND NOT EXISTS (
                        SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
                    RETURNING 1
                )
                SELECT COUNT(*)::bigint AS n FROM gone
                """)
            guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
            return Int(try PostgresRecordRow(row).int64("n"))
        }
    }
}
