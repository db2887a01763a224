import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// One transaction: all or none. Batches are small (one entry per admin request; one per app
    /// and reason per flush for rejected sign-ins), so a statement per entry costs little.
    public func appendAudit(_ entries: [NewAuditEntry]) async throws {
        guard !entries.isEmpty else { return }
        try await transaction("appendAudit") { db in
            for entry in entries {
                try await db.execute(
                    """
                    INSERT INTO audit_log (at, kind, actor, action, outcome, app_id, object_type, object_id, count, note)
                    VALUES (\(entry.at), \(entry.kind.rawValue), \(entry.actor), \(entry.action), \(entry.outcome),
                            \(entry.appID), \(entry.objectType), \(entry.objectID), \(entry.count), \(entry.note))
                    """)
            }
        }
    }

    /// Every filter is a parameter that is either NULL (no filter) or compared, so that one
    /// statement serves every combination.
    public func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        let kind = query.kind?.rawValue, limit = Int64(query.limit)
        return try await single("auditEntries") { db in
            try await db.rows(
                """
                SELECT * FROM audit_log
                WHERE (\(kind)::text IS NULL OR kind = \(kind)) AND (\(query.action)::text IS NULL OR action = \(query.action))
                  AND (\(query.appID)::uuid IS NULL OR app_id = \(query.appID))
                  AND (\(query.objectID)::text IS NULL OR object_id = \(query.objectID))
                  AND (\(query.since)::bigint IS NULL OR at >= \(query.since))
                  AND (\(query.until)::bigint IS NULL OR at < \(query.until))
                  AND (\(query.beforeID)::bigint IS NULL OR id < \(query.beforeID))
                ORDER BY id DESC LIMIT \(limit)
                """
            ).map(AuditEntry.init(postgres:))
        }
    }

    @discardableResult
    public func purgeAudit(before: Int64) async throws -> Int {
        try await single("purgeAudit") { db in
            try await db.count("DELETE FROM audit_log WHERE at < \(before) RETURNING 1")
        }
    }
}
