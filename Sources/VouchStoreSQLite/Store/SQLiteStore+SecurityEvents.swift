import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    /// The unpaused endpoints of app `?1` that subscribe to kind `?2` (`WordListColumn`).
    static let subscribedEndpoints = """
        SELECT id FROM webhook_endpoints
        WHERE app_id = ?1 AND paused_at IS NULL AND instr(' ' || events || ' ', ' ' || ?2 || ' ') > 0
        """

    /// Writes the event, and one pending delivery per unpaused endpoint of the app that subscribes
    /// to its kind, in the caller's transaction; writes nothing for a kind written only for a
    /// subscriber when there is none. A user's event takes the user's next `event_sequence`.
    static func recordEvent(
        _ kind: SecurityEventKind, appID: UUID, userID: String?, at: Int64, data: () -> String, _ db: SQLiteRunner
    ) throws {
        let endpoints = try db.rows(subscribedEndpoints, [.uuid(appID), .text(kind.rawValue)]).map { try $0.uuid("id") }
        guard !endpoints.isEmpty || kind.isWrittenWithoutSubscriber else { return }
        var sequence: Int64?
        if let userID {
            sequence = try db.rows(
                "UPDATE users SET event_sequence = event_sequence + 1 WHERE app_id = ? AND user_id = ? RETURNING event_sequence",
                [.uuid(appID), .text(userID)]
            ).first?.int64("event_sequence")
        }
        let id = UUID()
        let rows = try db.rows(
            """
            INSERT INTO security_events (id, app_id, user_id, user_sequence, kind, at, data)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING position
            """,
            [
                .uuid(id), .uuid(appID), .optionalText(userID), .optionalInt64(sequence), .text(kind.rawValue), .int64(at),
                .text(data()),
            ])
        guard let position = try rows.first?.int64("position") else {
            throw StoreError.unavailable("security event insert returned no position")
        }
        for endpoint in endpoints {
            try db.execute(
                """
                INSERT INTO webhook_deliveries (endpoint_id, event_id, position, user_id, user_sequence, state, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, 'pending', ?)
                """,
                [
                    .uuid(endpoint), .uuid(id), .int64(position), .optionalText(userID), .optionalInt64(sequence),
                    .int64(at * 1_000),
                ])
        }
    }

    /// `recordEvent` for each app the provider is bound to (a key's or a provider's event).
    static func recordEvent(
        _ kind: SecurityEventKind, providerID: UUID, at: Int64, data: () -> String, _ db: SQLiteRunner
    ) throws {
        let apps = try db.rows("SELECT app_id FROM provider_apps WHERE provider_id = ?", [.uuid(providerID)])
            .map { try $0.uuid("app_id") }
        for appID in apps { try recordEvent(kind, appID: appID, userID: nil, at: at, data: data, db) }
    }

    /// Whether anyone listens to `kind` in the app, from the writer's kept subscriptions.
    static func subscribes(
        _ kind: SecurityEventKind, appID: UUID, _ writerSubscriptions: WriterSubscriptions, _ db: SQLiteRunner
    ) throws -> Bool {
        try writerSubscriptions.kinds(of: appID) {
            var kinds = Set<String>()
            for row in try db.rows(
                "SELECT events FROM webhook_endpoints WHERE app_id = ? AND paused_at IS NULL", [.uuid(appID)])
            {
                kinds.formUnion(WordListColumn.words(try row.text("events")))
            }
            return kinds
        }.contains(kind.rawValue)
    }

    /// Positions are in commit order (one writer): the cursor is the position alone.
    public func securityEvents(
        appID: UUID, after cursor: SecurityEventCursor, kinds: [SecurityEventKind]?, limit: Int
    ) async throws -> [(cursor: SecurityEventCursor, event: SecurityEventRecord)] {
        let kindFilter = kinds.map { kinds in
            kinds.isEmpty ? " AND 0" : " AND kind IN (" + Array(repeating: "?", count: kinds.count).joined(separator: ", ") + ")"
        }
        let binds: [SQLiteData] =
            [.uuid(appID), .int64(cursor.position)] + (kinds ?? []).map { .text($0.rawValue) } + [.int64(Int64(max(0, limit)))]
        return try await read("securityEvents") { db in
            try db.rows(
                "SELECT * FROM security_events WHERE app_id = ? AND position > ?\(kindFilter ?? "") ORDER BY position LIMIT ?",
                binds
            ).map { (SecurityEventCursor(position: try $0.int64("position")), try SecurityEventRecord(row: $0)) }
        }
    }

    public func securityEventCursor(appID: UUID, since: Int64) async throws -> SecurityEventCursor {
        try await read("securityEventCursor") { db in
            let rows = try db.rows(
                """
                SELECT COALESCE(
                    (SELECT MIN(position) - 1 FROM security_events WHERE app_id = ?1 AND at >= ?2),
                    (SELECT MAX(position) FROM security_events WHERE app_id = ?1), 0) AS position
                """, [.uuid(appID), .int64(since)])
            return SecurityEventCursor(position: try rows.first?.int64("position") ?? 0)
        }
    }

    @discardableResult
    public func purgeSecurityEvents(before: Int64) async throws -> Int {
        try await exclusive("purgeSecurityEvents", invalidating: .none) { db in
            try db.changes(
                """
                DELETE FROM security_events
                WHERE at < ?1 AND NOT EXISTS (
                    SELECT 1 FROM webhook_deliveries d WHERE d.event_id = security_events.id AND d.state = 'pending')
                """, [.int64(before)])
        }
    }
}

extension SQLiteStore {
    /// Through the sessions' expiry index: the sessions that expired in (`through`, `now`]. A
    /// full page is completed to the end of its last second, so that the next call starts after
    /// a whole second and tells no session twice.
    public func recordSessionExpiries(now: Int64, limit: Int) async throws -> Int {
        try await transaction("recordSessionExpiries", invalidating: .none) { db in
            guard let through = try db.rows("SELECT through FROM session_expiry_events WHERE id = 1").first?.int64("through") else {
                try db.execute("INSERT INTO session_expiry_events (id, through) VALUES (1, ?)", [.int64(now)])
                return 0
            }
            guard through < now else { return 0 }
            let expired = { (upTo: Int64, limit: Int64) in
                try db.rows(
                    """
                    SELECT s.session_id, s.app_id, s.user_id, s.expires_at FROM sessions s
                    WHERE s.expires_at > ?1 AND s.expires_at <= ?2 AND s.ended_at IS NULL
                      AND EXISTS (
                          SELECT 1 FROM webhook_endpoints w
                          WHERE w.app_id = s.app_id AND w.paused_at IS NULL AND instr(' ' || w.events || ' ', ' session.ended ') > 0)
                    ORDER BY s.expires_at LIMIT ?3
                    """, [.int64(through), .int64(upTo), .int64(limit)])
            }
            var rows = try expired(now, Int64(max(1, limit)))
            var reached = now
            if rows.count >= max(1, limit), let last = try rows.last?.int64("expires_at") {
                reached = last
                rows = try expired(last, Int64.max)
            }
            for row in rows {
                let (sessionID, expiresAt) = (try row.uuid("session_id"), try row.int64("expires_at"))
                try Self.recordEvent(
                    .sessionEnded, appID: try row.uuid("app_id"), userID: try row.text("user_id"), at: expiresAt,
                    data: { SecurityEventData.sessionEnded(sessionID: sessionID, kind: .expired, actor: nil) }, db)
            }
            try db.execute("UPDATE session_expiry_events SET through = ? WHERE id = 1", [.int64(reached)])
            return rows.count
        }
    }
}
