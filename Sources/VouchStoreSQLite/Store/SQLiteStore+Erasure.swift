import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    /// The live sessions are ended first, by the statement every revocation uses, so that each
    /// gets its entry in the log of endings (the live channel and the services' streams act on
    /// it) before its row goes.
    public func eraseUser(appID: UUID, userID: String, pseudonym: String, now: Int64) async throws -> UserErasure {
        let erasure = try await transaction("eraseUser", invalidating: .user(appID: appID, userID: userID)) { db in
            let (app, user) = (SQLiteData.uuid(appID), SQLiteData.text(userID))
            guard !(try db.rows("SELECT 1 FROM users WHERE app_id = ? AND user_id = ?", [app, user])).isEmpty else {
                throw StoreError.notFound
            }
            let ended = try Self.endSessions(
                SessionEndingSQL.endUsers,
                [app, user, .int64(now), .text(SessionEndReason.signedOut.rawValue), .bytes([])],
                reason: .signedOut, actor: .operator, at: now, db)
            try Self.recordEvent(
                .userDeleted, appID: appID, userID: userID, at: now,
                data: { SecurityEventData.userDeleted(sessionsEnded: ended, pseudonym: pseudonym) }, db)
            try db.execute(
                "DELETE FROM live_tickets WHERE session_token_hash IN (SELECT token_hash FROM sessions WHERE app_id = ? AND user_id = ?)",
                [app, user])
            let forgotten = try db.changes("DELETE FROM sessions WHERE app_id = ? AND user_id = ?", [app, user])
            try db.execute("DELETE FROM users WHERE app_id = ? AND user_id = ?", [app, user])
            let pseudonymised = try db.changes(
                "UPDATE audit_log SET object_id = ? WHERE app_id = ? AND object_type = 'user' AND object_id = ?",
                [.text(pseudonym), app, user])
            return UserErasure(
                pseudonym: pseudonym, sessionsEnded: ended, sessionsForgotten: forgotten, auditEntriesPseudonymised: pseudonymised)
        }
        logger.info(
            "erased user",
            metadata: [
                "app_id": "\(appID.lowercased)", "sessions_ended": "\(erasure.sessionsEnded)",
                "sessions_forgotten": "\(erasure.sessionsForgotten)",
            ])
        return erasure
    }

    /// One read transaction: the user, their sessions and their events as of one moment.
    public func userData(appID: UUID, userID: String) async throws -> UserDataExport? {
        try await read("userData", inline: false) { db in
            let (app, user) = (SQLiteData.uuid(appID), SQLiteData.text(userID))
            guard let row = try db.rows("SELECT * FROM users WHERE app_id = ? AND user_id = ?", [app, user]).first else {
                return nil
            }
            let limit = SQLiteData.int64(Int64(UserDataExport.rowLimit))
            let sessions = try db.rows(
                "SELECT * FROM sessions WHERE app_id = ? AND user_id = ? ORDER BY created_at DESC, session_id LIMIT ?",
                [app, user, limit]
            ).map(SessionRecord.init(row:))
            let events = try db.rows(
                "SELECT * FROM security_events WHERE app_id = ? AND user_id = ? ORDER BY position LIMIT ?", [app, user, limit]
            ).map(SecurityEventRecord.init(row:))
            return UserDataExport(
                user: try UserRecord(row: row), createdAt: try row.int64("created_at"), updatedAt: try row.int64("updated_at"),
                sessions: sessions, events: events)
        }
    }
}
