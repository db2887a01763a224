import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    public func user(appID: UUID, userID: String) async throws -> UserRecord? {
        try await single("user") { db in
            try await db.rows("SELECT * FROM users WHERE app_id = \(appID) AND user_id = \(userID)")
                .first.map(UserRecord.init(postgres:))
        }
    }

    /// The user's row is locked first (read to know whether this suspends), and the upsert takes
    /// the lock `createSession` takes too: the sessions UPDATE that follows runs once no sign-in of
    /// this user is half done, and (READ COMMITTED: each statement sees what committed before it
    /// started) it sees every session they committed. A suspension's log entry is appended in
    /// that UPDATE's statement, the log's lock last.
    public func setSuspended(appID: UUID, userID: String, suspended: Bool, now: Int64) async throws -> UserRecord {
        let (user, ended) = try await transaction("setSuspended") { db in
            let wasSuspended =
                try await db.rows("SELECT suspended FROM users WHERE app_id = \(appID) AND user_id = \(userID) FOR UPDATE")
                .first.map { try PostgresRecordRow($0).bool("suspended") } ?? false
            let rows = try await db.rows(
                """
                INSERT INTO users (app_id, user_id, suspended, created_at, updated_at)
                VALUES (\(appID), \(userID), \(suspended), \(now), \(now))
                ON CONFLICT (app_id, user_id) DO UPDATE SET suspended = EXCLUDED.suspended, updated_at = EXCLUDED.updated_at
                RETURNING *
                """)
            guard let row = rows.first else { throw StoreError.unavailable("user upsert returned no row") }
            let user = try UserRecord(postgres: row)
            let ended =
                suspended
                ? try await Self.suspendSessions(appID: appID, userID: userID, now: now, logged: !wasSuspended, db)
                : []
            // The user's row is locked already: numbering its events takes no new lock.
            if suspended, !wasSuspended {
                try await Self.recordEvent(
                    .userSuspended, appID: appID, userID: userID, at: now,
                    data: SecurityEventData.userSuspension(endedSessionIDs: ended), db)
                for id in ended {
                    try await Self.recordEvent(
                        .sessionEnded, appID: appID, userID: userID, at: now,
                        data: SecurityEventData.sessionEnded(sessionID: id, kind: .suspended, actor: .operator), db)
                }
            } else if !suspended, wasSuspended {
                try await Self.recordEvent(
                    .userUnsuspended, appID: appID, userID: userID, at: now,
                    data: SecurityEventData.userSuspension(endedSessionIDs: nil), db)
            }
            return (user, ended.count)
        }
        logger.info(
            "set user suspension",
            metadata: [
                "app_id": "\(appID.uuidString.lowercased())", "suspended": "\(suspended)", "sessions_ended": "\(ended)",
            ])
        return user
    }

    public func activeSessionCount(appID: UUID, userID: String, now: Int64) async throws -> Int {
        try await single("activeSessionCount") { db in
            let rows = try await db.rows(
                PostgresQuery(
                    unsafeSQL: "SELECT COUNT(*)::bigint AS n" + SessionLookupSQL.joins
                        + "\nWHERE s.app_id = $1 AND s.user_id = $2 AND s.expires_at > $3 AND " + SessionLookupSQL.liveCondition,
                    binds: try Self.bindings(appID, userID, now)))
            guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
            return Int(try PostgresRecordRow(row).int64("n"))
        }
    }

    /// Also takes the user's row lock first (when the user exists), so a sign-in half done when
    /// the revocation starts is either ended by it or had not begun. Ends the sessions live by
    /// `SessionStanding` (not the cut-off ones), each logged in the same statement.
    @discardableResult
    public func revokeSessions(appID: UUID, userID: String, now: Int64) async throws -> Int {
        let ended = try await transaction("revokeSessions") { db in
            try await db.execute("SELECT 1 FROM users WHERE app_id = \(appID) AND user_id = \(userID) FOR UPDATE")
            return try await Self.endLogged(
                SessionEndingLog.endLive(where: "s.app_id = $5 AND s.user_id = $6"), now: now, reason: .revoked, actor: .operator,
                selectorValues: [appID, userID], db)
        }
        logger.info("revoked sessions", metadata: ["app_id": "\(appID.uuidString.lowercased())", "count": "\(ended)"])
        return ended
    }

    /// Ends the user's sessions that are neither ended nor expired at `now` (an ended session
    /// keeps its first reason), and, when `logged`, appends the user's `.suspended` entry once
    /// the sessions' rows are locked. Returns the sessions it ended, ordered by id.
    static func suspendSessions(
        appID: UUID, userID: String, now: Int64, logged: Bool, _ db: PostgresRunner
    ) async throws -> [UUID] {
        let rows = try await db.rows(
            """
            WITH ended AS (
                UPDATE sessions SET ended_at = \(now), end_reason = \(SessionEndReason.userSuspended.rawValue)
                WHERE app_id = \(appID) AND user_id = \(userID) AND ended_at IS NULL AND expires_at > \(now)
                RETURNING session_id
            ),
            turn AS (
                SELECT pg_advisory_xact_lock(\(SessionEndingLog.lockKey)) FROM (SELECT COUNT(*) AS n FROM ended) AS c
                WHERE \(logged)
            ),
            appended AS (
                INSERT INTO session_endings (at, kind, scope, app_id, user_id)
                SELECT \(now), \(SessionEndingKind.suspended.rawValue), 'user', \(appID), \(userID) FROM turn
            )
            SELECT session_id FROM ended ORDER BY session_id
            """)
        return try rows.map { try PostgresRecordRow($0).uuid("session_id") }
    }
}
