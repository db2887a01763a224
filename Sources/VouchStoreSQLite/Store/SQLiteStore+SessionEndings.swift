import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    /// One read: the entries, the oldest position kept and the highest ever handed out, from one
    /// snapshot. `sqlite_sequence` holds AUTOINCREMENT's high-water mark, which a purge leaves.
    public func sessionEndings(after position: Int64, limit: Int) async throws -> SessionEndingsPage {
        try await read("sessionEndings") { db in
            let entries = try db.rows(
                "SELECT * FROM session_endings WHERE position > ? ORDER BY position LIMIT ?",
                [.int64(position), .int64(Int64(max(0, limit)))]
            ).map(SessionEnding.init(row:))
            let oldest = try db.rows("SELECT MIN(position) AS oldest FROM session_endings").first?.optionalInt64("oldest")
            let latest =
                try db.rows("SELECT seq FROM sqlite_sequence WHERE name = 'session_endings'").first?.int64("seq") ?? 0
            return SessionEndingsPage(entries: entries, oldestPosition: oldest, latestPosition: latest)
        }
    }

    /// Deletes a prefix of the log: the entries logged before `before` up to the first one logged
    /// at or after it, so that what stays has no gap below its newest entry (a reader's
    /// `missedEntries(after:)` then tells every loss), whatever order the `at`s came in.
    @discardableResult
    public func purgeSessionEndings(before: Int64) async throws -> Int {
        try await exclusive("purgeSessionEndings", invalidating: .none) { db in
            try db.changes(SessionEndingSQL.purge, [.int64(before)])
        }
    }

    /// Appends one entry, inside the transaction of the ending it records.
    static func appendEnding(
        _ kind: SessionEndingKind, _ scope: SessionEndingScope, at now: Int64, generation: Int64? = nil,
        reason: String? = nil, _ db: SQLiteRunner
    ) throws {
        let columns = scope.columns
        try db.execute(
            """
            INSERT INTO session_endings (at, kind, scope, session_id, app_id, user_id, provider_id, key_id, generation, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .int64(now), .text(kind.rawValue), .text(columns.scope), columns.sessionID.map { .uuidBytes($0) } ?? .null,
                .optionalUUID(columns.appID), .optionalText(columns.userID), .optionalUUID(columns.providerID),
                .optionalUUID(columns.keyID), .optionalInt64(generation), .optionalText(reason),
            ])
    }

    /// Runs one of `SessionEndingSQL`'s endings (an UPDATE returning the sessions it ended) and
    /// appends a `.session` entry of `reason` for each, with its `session.ended` event, in the
    /// caller's transaction.
    static func endSessions(
        _ sql: String, _ binds: [SQLiteData], reason: SessionEndReason, actor: SecurityEventActor, at now: Int64,
        _ db: SQLiteRunner
    ) throws -> Int {
        let ended = try db.rows(sql, binds)
        for row in ended {
            let (sessionID, appID, userID) = (try row.uuid("session_id"), try row.uuid("app_id"), try row.text("user_id"))
            try endedOne(sessionID, appID: appID, userID: userID, reason: reason, actor: actor, at: now, db)
        }
        return ended.count
    }

    /// The log's entry and the event of one session just ended.
    static func endedOne(
        _ sessionID: UUID, appID: UUID, userID: String, reason: SessionEndReason, actor: SecurityEventActor, at now: Int64,
        _ db: SQLiteRunner
    ) throws {
        try appendEnding(reason.endingKind, .session(sessionID, appID: appID, userID: userID), at: now, db)
        try recordEvent(
            .sessionEnded, appID: appID, userID: userID, at: now,
            data: { SecurityEventData.sessionEnded(sessionID: sessionID, kind: SessionEndedKind(reason), actor: actor) }, db)
    }
}
