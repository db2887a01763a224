import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    public func user(appID: UUID, userID: String) async throws -> UserRecord? {
        try await read("user") { db in
            try db.rows(
                "SELECT * FROM users WHERE app_id = ? AND user_id = ?", [.uuid(appID), .text(userID)]
            ).first.map(UserRecord.init(row:))
        }
    }

    public func setSuspended(appID: UUID, userID: String, suspended: Bool, now: Int64) async throws -> UserRecord {
        let (user, ended) = try await transaction("setSuspended", invalidating: .user(appID: appID, userID: userID)) { db in
            let wasSuspended =
                try db.rows("SELECT suspended FROM users WHERE app_id = ? AND user_id = ?", [.uuid(appID), .text(userID)])
                .first?.bool("suspended") ?? false
            let rows = try db.rows(
                """
                INSERT INTO users (app_id, user_id, suspended, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
                ON CONFLICT (app_id, user_id) DO UPDATE SET suspended = excluded.suspended, updated_at = excluded.updated_at
                RETURNING *
                """,
                [.uuid(appID), .text(userID), .bool(suspended), .int64(now)])
            guard let row = rows.first else { throw StoreError.unavailable("user upsert returned no row") }
            let user = try UserRecord(row: row)
            let ended =
                suspended
                ? try Self.endLiveSessions(appID: appID, userID: userID, now: now, reason: .userSuspended, db)
                : 0
            // Logged only when this suspends: one entry reaches every session of the user.
            if suspended, !wasSuspended {
                try Self.appendEnding(.suspended, .user(appID: appID, userID: userID), at: now, db)
                try Self.recordSuspension(appID: appID, userID: userID, at: now, db)
            } else if !suspended, wasSuspended {
                try Self.recordEvent(
                    .userUnsuspended, appID: appID, userID: userID, at: now,
                    data: { SecurityEventData.userSuspension(endedSessionIDs: nil) }, db)
            }
            return (user, ended)
        }
        logger.info(
            "set user suspension",
            metadata: [
                "app_id": "\(appID.lowercased)", "suspended": "\(suspended)", "sessions_ended": "\(ended)",
            ])
        return user
    }

    public func activeSessionCount(appID: UUID, userID: String, now: Int64) async throws -> Int {
        try await read("activeSessionCount", inline: false) { db in
            let rows = try db.rows(UserSessionStatements.countLive, [.uuid(appID), .text(userID), .int64(now)])
            guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
            return Int(try row.int64("n"))
        }
    }

    /// Ends the sessions that are live by `SessionStanding` (not the cut-off ones) and logs one
    /// entry each, in one transaction.
    @discardableResult
    public func revokeSessions(appID: UUID, userID: String, now: Int64) async throws -> Int {
        let ended = try await transaction("revokeSessions", invalidating: .user(appID: appID, userID: userID)) { db in
            try Self.endSessions(
                SessionEndingSQL.endUsers,
                [.uuid(appID), .text(userID), .int64(now), .text(SessionEndReason.revoked.rawValue), .bytes([])],
                reason: .revoked, actor: .operator, at: now, db)
        }
        logger.info("revoked sessions", metadata: ["app_id": "\(appID.lowercased)", "count": "\(ended)"])
        return ended
    }

    /// `user.suspended` naming the sessions the suspension ended, then a `session.ended` for each.
    private static func recordSuspension(appID: UUID, userID: String, at now: Int64, _ db: SQLiteRunner) throws {
        let ids = try db.rows(
            UserSessionStatements.endedAt,
            [.uuid(appID), .text(userID), .int64(now), .text(SessionEndReason.userSuspended.rawValue)]
        ).map { try $0.uuid("session_id") }
        try recordEvent(
            .userSuspended, appID: appID, userID: userID, at: now,
            data: { SecurityEventData.userSuspension(endedSessionIDs: ids) }, db)
        for id in ids {
            try recordEvent(
                .sessionEnded, appID: appID, userID: userID, at: now,
                data: { SecurityEventData.sessionEnded(sessionID: id, kind: .suspended, actor: .operator) }, db)
        }
    }

    /// Live means neither ended nor expired at `now`: an ended session keeps its first reason, and
    /// an expired one stays as it was, so the server keeps telling "expired" for it.
    static func endLiveSessions(
        appID: UUID, userID: String, now: Int64, reason: SessionEndReason, _ db: SQLiteRunner
    ) throws -> Int {
        try db.changes(
            UserSessionStatements.endLive,
            [.uuid(appID), .text(userID), .int64(now), .text(reason.rawValue)])
    }
}
