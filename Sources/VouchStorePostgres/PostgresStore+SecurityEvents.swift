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

    public func securityEvents(appID: UUID, after position: Int64, limit: Int) async throws -> [(position: Int64, event: SecurityEventRecord)] {
        try await single("securityEvents") { db in
            try await db.rows(
                """
                SELECT * FROM security_events WHERE app_id = \(appID) AND position > \(position)
                ORDER BY position LIMIT \(Int64(max(0, limit)))
                """
            ).map { row in
                let record = PostgresRecordRow(row)
                return (try record.int64("position"), try SecurityEventRecord(row: record))
            }
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
