import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    /// One READ COMMITTED transaction, in three statements:
    ///
    /// 1. The object's row is locked FOR UPDATE. Every sign-in reads its app's, provider's and
    ///    key's generations FOR KEY SHARE (and a user's cutoff shares the user's row lock with the
    ///    sign-in's upsert), so this waits until every sign-in that read the old generation has
    ///    committed, and every sign-in that comes later waits until this commits.
    /// 2. The live sessions of the scope are counted: a new statement, so it sees every session
    ///    those sign-ins committed, and none can be added meanwhile.
    /// 3. The generation moves on, and the log's entry is appended in the same statement, the
    ///    log's lock taken last (`SessionEndingLog`). From the commit on, every instance's next
    ///    read of those sessions finds a generation that is no longer current; the later sign-ins
    ///    record the new one. No clock takes part.
    public func cutOff(_ target: CutoffTarget, reason: String?, now: Int64) async throws -> CutoffResult {
        try await transaction("cutOff") { db in
            _ = try await Self.existingCutoff(target, lock: true, db)
            let ended = try await Self.liveCount(target, now: now, db)
            // A user's cutoff tells each session it ends; a wider one, only itself.
            var endedSessions: [UUID] = []
            if case .user(let appID, let userID) = target {
                endedSessions = try await Self.liveSessions(appID: appID, userID: userID, now: now, db).map(\.session.sessionID)
            }
            let row = target.postgresRow
            let scope = target.endingScope.columns
            let first = 3 + row.columns.count
            guard
                let updated = try await db.rows(
                    PostgresQuery(
                        unsafeSQL: """
                            WITH cut AS (
                                UPDATE \(row.table) SET cutoff_generation = cutoff_generation + 1, cutoff_at = $1,
                                    cutoff_reason = $2
                                WHERE \(row.condition(from: 3)) RETURNING cutoff_generation, cutoff_at, cutoff_reason
                            ),
                            turn AS (SELECT pg_advisory_xact_lock(\(SessionEndingLog.lockKey)) FROM cut),
                            appended AS (
                                INSERT INTO session_endings (at, kind, scope, app_id, user_id, provider_id, key_id, generation, reason)
                                SELECT $1, '\(SessionEndingKind.cutOff.rawValue)', $\(first), $\(first + 1), $\(first + 2),
                                    $\(first + 3), $\(first + 4), cut.cutoff_generation, $2
                                FROM cut CROSS JOIN turn
                            )
                            SELECT * FROM cut
                            """,
                        binds: try row.bindings(
                            prefixedWith: [now, reason],
                            suffixedWith: [scope.scope, scope.appID, scope.userID, scope.providerID, scope.keyID]))
                )
                .first.flatMap({ try ScopeCutoff(row: PostgresRecordRow($0), prefix: "") })
            else { throw StoreError.notFound }
            // A user's row is locked already (`existingCutoff`): numbering its event takes no new lock.
            let data = SecurityEventData.cutoffSet(target, generation: updated.generation, sessionsEnded: ended, reason: reason)
            switch target {
            case .app(let appID): try await Self.recordEvent(.cutoffSet, appID: appID, userID: nil, at: now, data: data, db)
            case .user(let appID, let userID):
                try await Self.recordEvent(.cutoffSet, appID: appID, userID: userID, at: now, data: data, db)
                for sessionID in endedSessions {
                    try await Self.recordEvent(
                        .sessionEnded, appID: appID, userID: userID, at: now,
                        data: SecurityEventData.sessionEnded(sessionID: sessionID, kind: .cutOff, actor: .operator, reason: reason), db)
                }
            case .provider(let providerID): try await Self.recordEvent(.cutoffSet, providerID: providerID, at: now, data: data, db)
            case .key(let keyID):
                try await db.execute(
                    """
                    SELECT vouch_record_event(pa.app_id, NULL, \(SecurityEventKind.cutoffSet.rawValue), \(now), \(data))
                    FROM provider_keys k JOIN provider_apps pa ON pa.provider_id = k.provider_id WHERE k.id = \(keyID)
                    """)
            }
            return CutoffResult(cutoff: updated, sessionsEnded: ended)
        }
    }

    public func cutoff(of target: CutoffTarget) async throws -> ScopeCutoff {
        try await single("cutoff") { db in try await Self.existingCutoff(target, lock: false, db) }
    }

    public func liveSessionCount(of target: CutoffTarget, now: Int64) async throws -> Int {
        try await single("liveSessionCount") { db in
            _ = try await Self.existingCutoff(target, lock: false, db)
            return try await Self.liveCount(target, now: now, db)
        }
    }

    /// The target's cutoff; `.notFound` without a row, `.tombstone` for a deleted key.
    private static func existingCutoff(_ target: CutoffTarget, lock: Bool, _ db: PostgresRunner) async throws -> ScopeCutoff {
        let row = target.postgresRow
        let statusColumn = if case .key = target { "status" } else { "NULL::text AS status" }
        guard
            let found = try await db.rows(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT cutoff_generation, cutoff_at, cutoff_reason, \(statusColumn) FROM \(row.table)
                        WHERE \(row.condition(from: 1))\(lock ? " FOR UPDATE" : "")
                        """,
                    binds: try row.bindings(prefixedWith: []))
            ).first.map(PostgresRecordRow.init)
        else { throw StoreError.notFound }
        if try found.optionalText("status") == "deleted" { throw StoreError.tombstone }
        return try ScopeCutoff(row: found, prefix: "") ?? .none
    }

    private static func liveCount(_ target: CutoffTarget, now: Int64, _ db: PostgresRunner) async throws -> Int {
        let row = target.postgresRow
        let rows = try await db.rows(
            PostgresQuery(
                unsafeSQL: "SELECT COUNT(*)::bigint AS n" + SessionLookupSQL.joins
                    + "\nWHERE s.expires_at > $1 AND \(row.sessionCondition(from: 2)) AND " + SessionLookupSQL.liveCondition,
                binds: try row.bindings(prefixedWith: [now])))
        return Int(try rows.first.map { try PostgresRecordRow($0).int64("n") } ?? 0)
    }
}

/// Where a target's cutoff is kept and which sessions it covers, in PostgreSQL's parameter syntax.
private struct PostgresCutoffRow {
    let table: String
    let columns: [String]
    let values: [any PostgresEncodable & Sendable]

    func condition(from first: Int) -> String {
        columns.enumerated().map { "\($1) = $\(first + $0)" }.joined(separator: " AND ")
    }

    func sessionCondition(from first: Int) -> String {
        columns.enumerated().map { "s.\(sessionColumn($1)) = $\(first + $0)" }.joined(separator: " AND ")
    }

    private func sessionColumn(_ column: String) -> String {
        switch (table, column) {
        case ("apps", "id"): "app_id"
        case ("providers", "id"): "provider_id"
        case ("provider_keys", "id"): "key_id"
        default: column
        }
    }

    func bindings(
        prefixedWith prefix: [(any PostgresEncodable & Sendable)?], suffixedWith suffix: [(any PostgresEncodable & Sendable)?] = []
    ) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: prefix.count + values.count + suffix.count)
        for value in prefix {
            if let value { try bindings.append(value) } else { bindings.appendNull() }
        }
        for value in values { try bindings.append(value) }
        for value in suffix {
            if let value { try bindings.append(value) } else { bindings.appendNull() }
        }
        return bindings
    }
}

extension CutoffTarget {
    fileprivate var postgresRow: PostgresCutoffRow {
        switch self {
        case .app(let id): PostgresCutoffRow(table: "apps", columns: ["id"], values: [id])
        case .provider(let id): PostgresCutoffRow(table: "providers", columns: ["id"], values: [id])
        case .key(let id): PostgresCutoffRow(table: "provider_keys", columns: ["id"], values: [id])
        case .user(let appID, let userID):
            PostgresCutoffRow(table: "users", columns: ["app_id", "user_id"], values: [appID, userID])
        }
    }
}
