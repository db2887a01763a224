import Foundation
import VouchStore

extension SQLiteStore {
    public func appendAudit(_ entries: [NewAuditEntry]) async throws {
        guard !entries.isEmpty else { return }
        try await transaction("appendAudit", invalidating: .none) { db in
            for entry in entries {
                try db.execute(
                    """
                    INSERT INTO audit_log (at, kind, actor, action, outcome, app_id, object_type, object_id, count, note)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .int64(entry.at), .text(entry.kind.rawValue), .optionalText(entry.actor), .text(entry.action),
                        .text(entry.outcome), entry.appID.map { .uuid($0) } ?? .null, .optionalText(entry.objectType),
                        .optionalText(entry.objectID), .int64(entry.count), .optionalText(entry.note),
                    ])
            }
        }
    }

    /// Every filter is a parameter that is either NULL (no filter) or compared, so that one
    /// statement serves every combination.
    public func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        try await read("auditEntries") { db in
            try db.rows(
                """
                SELECT * FROM audit_log
                WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR action = ?2) AND (?3 IS NULL OR app_id = ?3)
                  AND (?4 IS NULL OR object_id = ?4) AND (?5 IS NULL OR at >= ?5) AND (?6 IS NULL OR at < ?6)
                  AND (?7 IS NULL OR id < ?7)
                ORDER BY id DESC LIMIT ?8
                """,
                [
                    .optionalText(query.kind?.rawValue), .optionalText(query.action), query.appID.map { .uuid($0) } ?? .null,
                    .optionalText(query.objectID), query.since.map { .int64($0) } ?? .null,
                    query.until.map { .int64($0) } ?? .null, query.beforeID.map { .int64($0) } ?? .null,
                    .int64(Int64(query.limit)),
                ]
            ).map(AuditEntry.init(row:))
        }
    }

    @discardableResult
    public func purgeAudit(before: Int64) async throws -> Int {
        try await exclusive("purgeAudit", invalidating: .none) { db in
            try db.changes("DELETE FROM audit_log WHERE at < ?", [.int64(before)])
        }
    }
}
