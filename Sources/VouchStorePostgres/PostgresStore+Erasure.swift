import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    /// The user's row is locked first, as a suspension locks it: a sign-in of this user half done
    /// when the erasure starts either committed before (and its session is ended and deleted
    /// here) or waits and makes a new user after. The live sessions are ended by the statement
    /// every revocation uses, each logged, before their rows go.
    public func eraseUser(appID: UUID, userID: String, pseudonym: String, now: Int64) async throws -> UserErasure {
        let erasure = try await transaction("eraseUser") { db in
            let found = try await db.rows("SELECT 1 FROM users WHERE app_id = \(appID) AND user_id = \(userID) FOR UPDATE")
            guard !found.isEmpty else { throw StoreError.notFound }
            let ended = try await Self.endLogged(
                SessionEndingLog.endLive(where: "s.app_id = $5 AND s.user_id = $6"), now: now, reason: .signedOut,
                actor: .operator, selectorValues: [appID, userID], db)
            try await Self.recordEvent(
                .userDeleted, appID: appID, userID: userID, at: now,
                data: SecurityEventData.userDeleted(sessionsEnded: ended, pseudonym: pseudonym), db)
            let rows = try await db.rows(
                """
                WITH tickets AS (
                    DELETE FROM live_tickets
                    WHERE session_token_hash IN (SELECT token_hash FROM sessions WHERE app_id = \(appID) AND user_id = \(userID))
                ),
                forgotten AS (DELETE FROM sessions WHERE app_id = \(appID) AND user_id = \(userID) RETURNING 1),
                pseudonymised AS (
                    UPDATE audit_log SET object_id = \(pseudonym)
                    WHERE app_id = \(appID) AND object_type = 'user' AND object_id = \(userID)
                    RETURNING 1
                )
                SELECT (SELECT COUNT(*) FROM forgotten)::bigint AS forgotten,
                       (SELECT COUNT(*) FROM pseudonymised)::bigint AS pseudonymised
                """)
            // The sessions' rows reference the user's: they are gone once the statement above is.
            try await db.execute("DELETE FROM users WHERE app_id = \(appID) AND user_id = \(userID)")
            guard let row = rows.first.map(PostgresRecordRow.init) else { throw StoreError.unavailable("erasure counted no rows") }
            return UserErasure(
                pseudonym: pseudonym, sessionsEnded: ended, sessionsForgotten: Int(try row.int64("forgotten")),
                auditEntriesPseudonymised: Int(try row.int64("pseudonymised")))
        }
        logger.info(
            "erased user",
            metadata: [
                "app_id": "\(appID.uuidString.lowercased())", "sessions_ended": "\(erasure.sessionsEnded)",
                "sessions_forgotten": "\(erasure.sessionsForgotten)",
            ])
        return erasure
    }

    /// One REPEATABLE READ transaction would be exact; the user's row, sessions and events read in
    /// one transaction under READ COMMITTED may see a sign-in that commits between them, which an
    /// export may show.
    public func userData(appID: UUID, userID: String) async throws -> UserDataExport? {
        let limit = Int64(UserDataExport.rowLimit)
        return try await transaction("userData") { db in
            guard let row = try await db.rows("SELECT * FROM users WHERE app_id = \(appID) AND user_id = \(userID)").first
            else { return nil }
            let sessions = try await db.rows(
                """
                SELECT * FROM sessions WHERE app_id = \(appID) AND user_id = \(userID)
                ORDER BY created_at DESC, session_id LIMIT \(limit)
                """
            ).map { try SessionRecord(row: PostgresRecordRow($0)) }
            let events = try await db.rows(
                "SELECT * FROM security_events WHERE app_id = \(appID) AND user_id = \(userID) ORDER BY position LIMIT \(limit)"
            ).map { try SecurityEventRecord(row: PostgresRecordRow($0)) }
            let user = PostgresRecordRow(row)
            return UserDataExport(
                user: try UserRecord(row: user), createdAt: try user.int64("created_at"), updatedAt: try user.int64("updated_at"),
                sessions: sessions, events: events)
        }
    }
}
