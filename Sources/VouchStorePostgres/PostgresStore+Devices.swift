import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// The user's unended sessions joined to their cutoffs, judged one by one by `SessionStanding`.
    public func liveSessions(appID: UUID, userID: String, now: Int64) async throws -> [SessionLookup] {
        try await single("liveSessions") { db in try await Self.liveSessions(appID: appID, userID: userID, now: now, db) }
    }

    /// `liveSessions` in the caller's transaction (a user's cutoff names the sessions it ends).
    static func liveSessions(appID: UUID, userID: String, now: Int64, _ db: PostgresRunner) async throws -> [SessionLookup] {
        try await db.rows(
            PostgresQuery(
                unsafeSQL: SessionLookupSQL.selection + """

                    WHERE s.app_id = $1 AND s.user_id = $2 AND s.ended_at IS NULL AND s.expires_at > $3
                    ORDER BY s.created_at, s.session_id
                    """,
                binds: try bindings(appID, userID, now))
        ).map { try SessionLookupSQL.decode(PostgresRecordRow($0)) }.filter { $0.standing(at: now).isLive }
    }

    public func sessionLookup(sessionID: UUID) async throws -> SessionLookup? {
        try await single("sessionLookupByID") { db in try await Self.lookup(sessionID: sessionID, lock: false, db) }
    }

    static func lookup(sessionID: UUID, lock: Bool, _ db: PostgresRunner) async throws -> SessionLookup? {
        try await db.rows(
            PostgresQuery(
                unsafeSQL: SessionLookupSQL.selection + "\nWHERE s.session_id = $1" + (lock ? " FOR UPDATE OF s" : ""),
                binds: try bindings(sessionID))
        ).first.map { try SessionLookupSQL.decode(PostgresRecordRow($0)) }
    }

    /// The session's row is locked while it is judged and ended, so that nothing ends it in between.
    public func endSession(
        sessionID: UUID, owner: (appID: UUID, userID: String)?, reason: SessionEndReason, now: Int64
    ) async throws -> SessionLookup? {
        let ownerApp = owner?.appID
        let ownerUser = owner?.userID
        return try await transaction("endSession") { db -> SessionLookup? in
            guard let found = try await Self.lookup(sessionID: sessionID, lock: true, db) else { return nil }
            if let ownerApp, let ownerUser, found.session.appID != ownerApp || found.session.userID != ownerUser {
                return nil
            }
            if found.standing(at: now).isLive {
                // The row is locked already: the log's lock is the last one taken.
                _ = try await Self.endLogged(
                    """
                    UPDATE sessions SET ended_at = $1, end_reason = $2 WHERE session_id = $5 AND ended_at IS NULL
                    RETURNING session_id, app_id, user_id
                    """, now: now, reason: reason, actor: ownerApp == nil ? .operator : .user, selectorValues: [sessionID], db)
            }
            return found
        }
    }

    /// One statement: the other sessions live by `SessionStanding` end, each logged.
    public func signOutOtherSessions(appID: UUID, userID: String, keeping tokenHash: [UInt8], now: Int64) async throws -> Int {
        try await single("signOutOtherSessions") { db in
            try await Self.endLogged(
                SessionEndingLog.endLive(where: "s.app_id = $5 AND s.user_id = $6 AND s.token_hash <> $7"), now: now,
                reason: .signedOut, actor: .user, selectorValues: [appID, userID, tokenHash.bytea], db)
        }
    }

    static func bindings(_ values: any PostgresEncodable & Sendable...) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value) }
        return bindings
    }
}
