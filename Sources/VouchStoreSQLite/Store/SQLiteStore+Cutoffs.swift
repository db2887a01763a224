import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    /// One transaction on the single writer: the sessions counted are exactly those the new
    /// generation ends, since every sign-in is ordered before it (and counted) or after it (and
    /// records the new generation, `createSession`). A catalogue cutoff drops every kept answer
    /// (`.everything`), a user's drops that user's. The log's entry is appended in the same
    /// transaction.
    public func cutOff(_ target: CutoffTarget, reason: String?, now: Int64) async throws -> CutoffResult {
        let row = target.sqliteRow
        let invalidation: CacheInvalidation =
            switch target {
            case .user(let appID, let userID): .user(appID: appID, userID: userID)
            case .app, .provider, .key: .everything
            }
        return try await transaction("cutOff", invalidating: invalidation) { db in
            _ = try Self.existingCutoff(target, db)
            let ended = try Self.liveCount(target, now: now, db)
            // A user's cutoff tells each session it ends; a wider one, only itself.
            var endedSessions: [UUID] = []
            if case .user(let appID, let userID) = target {
                endedSessions = try Self.liveSessions(appID: appID, userID: userID, now: now, db).map(\.session.sessionID)
            }
            guard
                let updated = try db.rows(
                    """
                    UPDATE \(row.table) SET cutoff_generation = cutoff_generation + 1, cutoff_at = ?, cutoff_reason = ?
                    WHERE \(row.condition) RETURNING cutoff_generation, cutoff_at, cutoff_reason
                    """,
                    [.int64(now), .optionalText(reason)] + row.arguments
                ).first.flatMap({ try ScopeCutoff(row: $0, prefix: "") })
            else { throw StoreError.notFound }
            try Self.appendEnding(.cutOff, target.endingScope, at: now, generation: updated.generation, reason: reason, db)
            let data = { SecurityEventData.cutoffSet(target, generation: updated.generation, sessionsEnded: ended, reason: reason) }
            switch target {
            case .app(let appID): try Self.recordEvent(.cutoffSet, appID: appID, userID: nil, at: now, data: data, db)
            case .user(let appID, let userID):
                try Self.recordEvent(.cutoffSet, appID: appID, userID: userID, at: now, data: data, db)
                for sessionID in endedSessions {
                    try Self.recordEvent(
                        .sessionEnded, appID: appID, userID: userID, at: now,
                        data: { SecurityEventData.sessionEnded(sessionID: sessionID, kind: .cutOff, actor: .operator, reason: reason) }, db)
                }
            case .provider(let providerID): try Self.recordEvent(.cutoffSet, providerID: providerID, at: now, data: data, db)
            case .key(let keyID):
                if let providerID = try db.rows("SELECT provider_id FROM provider_keys WHERE id = ?", [.uuid(keyID)]).first?.uuid("provider_id") {
                    try Self.recordEvent(.cutoffSet, providerID: providerID, at: now, data: data, db)
                }
            }
            return CutoffResult(cutoff: updated, sessionsEnded: ended)
        }
    }

    public func cutoff(of target: CutoffTarget) async throws -> ScopeCutoff {
        try await read("cutoff") { db in try Self.existingCutoff(target, db) }
    }

    public func liveSessionCount(of target: CutoffTarget, now: Int64) async throws -> Int {
        try await read("liveSessionCount", inline: false) { db in
            _ = try Self.existingCutoff(target, db)
            return try Self.liveCount(target, now: now, db)
        }
    }

    /// The target's cutoff; `.notFound` when it has no row, `.tombstone` for a deleted key.
    private static func existingCutoff(_ target: CutoffTarget, _ db: SQLiteRunner) throws -> ScopeCutoff {
        let row = target.sqliteRow
        let statusColumn = if case .key = target { "status" } else { "NULL AS status" }
        guard
            let found = try db.rows(
                "SELECT cutoff_generation, cutoff_at, cutoff_reason, \(statusColumn) FROM \(row.table) WHERE \(row.condition)",
                row.arguments
            ).first
        else { throw StoreError.notFound }
        if try found.optionalText("status") == "deleted" { throw StoreError.tombstone }
        return try ScopeCutoff(row: found, prefix: "") ?? .none
    }

    private static func liveCount(_ target: CutoffTarget, now: Int64, _ db: SQLiteRunner) throws -> Int {
        let row = target.sqliteRow
        let rows = try db.rows(
            "SELECT COUNT(*) AS n" + SessionLookupSQL.joins
                + "\nWHERE s.expires_at > ? AND \(row.sessionCondition) AND " + SessionLookupSQL.liveCondition,
            [.int64(now)] + row.arguments)
        return Int(try rows.first?.int64("n") ?? 0)
    }
}

extension CutoffTarget {
    /// Where the target's cutoff is kept, and which sessions it covers, as SQLite statements say it.
    fileprivate var sqliteRow: (table: String, condition: String, sessionCondition: String, arguments: [SQLiteData]) {
        switch self {
        case .app(let id): ("apps", "id = ?", "s.app_id = ?", [.uuid(id)])
        case .provider(let id): ("providers", "id = ?", "s.provider_id = ?", [.uuid(id)])
        case .key(let id): ("provider_keys", "id = ?", "s.key_id = ?", [.uuid(id)])
        case .user(let appID, let userID):
            ("users", "app_id = ? AND user_id = ?", "s.app_id = ? AND s.user_id = ?", [.uuid(appID), .text(userID)])
        }
    }
}
