import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    public func user(appID: UUID, userID: String) async throws -> UserRecord? {
        try await single("user") { db in
            try await db.rows("SELECT * FROM users WHERE app_id = \(appID) AND user_id = \(userID)")
                .first.map(UserRecord.init(postgres:))
        }
    }

    /// The upsert takes the user's row lock, which `createSession` also takes: the sessions UPDATE
    /// that follows runs once no sign-in of this user is half done, and (READ COMMITTED: each
    /// statement sees what committed before it started) it sees every session they committed.
    public func setSuspended(appID: UUID, userID: String, suspended: Bool, now: Int64) async throws -> UserRecord {
        let (user, ended) = try await transaction("setSuspended") { db in
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
                ? try await Self.endLiveSessions(appID: appID, userID: userID, now: now, reason: .userSuspended, db)
                : 0
            return (user, ended)
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
    /// the revocation starts is either ended by it or had not begun.
    @discardableResult
    public func revokeSessions(appID: UUID, userID: String, now: Int64) async throws -> Int {
        let ended = try await transaction("revokeSessions") { db in
            try await db.execute("SELECT 1 FROM users WHERE app_id = \(appID) AND user_id = \(userID) FOR UPDATE")
            return try await Self.endLiveSessions(appID: appID, userID: userID, now: now, reason: .revoked, db)
        }
        logger.info("revoked sessions", metadata: ["app_id": "\(appID.uuidString.lowercased())", "count": "\(ended)"])
        return ended
    }

    /// Live means neither ended nor expired at `now`: an ended session keeps its first reason.
    static func endLiveSessions(
        appID: UUID, userID: String, now: Int64, reason: SessionEndReason, _ db: PostgresRunner
    ) async throws -> Int {
        try await db.count(
            """
            UPDATE sessions SET ended_at = \(now), end_reason = \(reason.rawValue)
            WHERE app_id = \(appID) AND user_id = \(userID) AND ended_at IS NULL AND expires_at > \(now)
            RETURNING 1
            """)
    }
}
