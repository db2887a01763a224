import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    /// `vouch_record_event` (migration 9) in the caller's transaction: the event and one pending
    /// delivery per unpaused endpoint of the app that subscribes to its kind; nothing for
    /// `session.created` when no endpoint subscribes to it. A user's
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

extension PostgresStore {
    /// The one row of `session_expiry_events` is locked first: instances sweeping at once take
    /// turns, and the second finds the first's `through`. A full page is completed to the end of
    /// its last second, so that the next call starts after a whole second and tells no session
    /// twice. Users' rows are locked in expiry order by the events' numbering; a transaction that
    /// holds one user's row waits for nothing this one holds.
    public func recordSessionExpiries(now: Int64, limit: Int) async throws -> Int {
        let pageSize = Int64(max(1, limit))
        return try await transaction("recordSessionExpiries") { db in
            try await db.execute("INSERT INTO session_expiry_events (id, through) VALUES (1, \(now)) ON CONFLICT (id) DO NOTHING")
            guard
                let through = try await db.rows("SELECT through FROM session_expiry_events WHERE id = 1 FOR UPDATE").first
                    .map({ try PostgresRecordRow($0).int64("through") }), through < now
            else { return 0 }
            let last = try await db.rows(
                """
                SELECT max(expires_at) AS last, count(*)::bigint AS n FROM (
                    SELECT s.expires_at FROM sessions s
                    WHERE s.expires_at > \(through) AND s.expires_at <= \(now) AND s.ended_at IS NULL
                      AND EXISTS (
                          SELECT 1 FROM webhook_endpoints w
                          WHERE w.app_id = s.app_id AND w.paused_at IS NULL AND 'session.ended' = ANY (string_to_array(w.events, ' ')))
                    ORDER BY s.expires_at LIMIT \(pageSize)) AS page
                """
            ).first.map(PostgresRecordRow.init)
            let reached = try last.flatMap { try $0.int64("n") >= pageSize ? $0.int64("last") : nil } ?? now
            let told = try await db.rows(
                """
                WITH expired AS (
                    SELECT s.session_id, s.app_id, s.user_id, s.expires_at FROM sessions s
                    WHERE s.expires_at > \(through) AND s.expires_at <= \(reached) AND s.ended_at IS NULL
                      AND EXISTS (
                          SELECT 1 FROM webhook_endpoints w
                          WHERE w.app_id = s.app_id AND w.paused_at IS NULL AND 'session.ended' = ANY (string_to_array(w.events, ' ')))
                    ORDER BY s.expires_at
                ),
                recorded AS (
                    SELECT vouch_record_event(
                        e.app_id, e.user_id, 'session.ended', e.expires_at,
                        jsonb_build_object('session_id', e.session_id, 'kind', 'expired')::text) AS queued
                    FROM expired AS e
                )
                SELECT COUNT(*)::bigint AS n FROM recorded
                """)
            try await db.execute("UPDATE session_expiry_events SET through = \(reached) WHERE id = 1")
            return Int(try told.first.map { try PostgresRecordRow($0).int64("n") } ?? 0)
        }
    }
}
