import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    /// Read through the expiry index's live range (`UserSessionStatements`) and judged one by one
    /// by `SessionStanding`, the rule every request uses.
    public func liveSessions(appID: UUID, userID: String, now: Int64) async throws -> [SessionLookup] {
        try await read("liveSessions", inline: false) { db in try Self.liveSessions(appID: appID, userID: userID, now: now, db) }
    }

    /// `liveSessions` in the caller's transaction (a user's cutoff names the sessions it ends).
    static func liveSessions(appID: UUID, userID: String, now: Int64, _ db: SQLiteRunner) throws -> [SessionLookup] {
        try db.rows(UserSessionStatements.listLive, [.uuid(appID), .text(userID), .int64(now)]).map(SessionLookupSQL.decode).filter {
            $0.standing(at: now).isLive
        }
    }

    /// The session cache's answer when it holds the session; otherwise the session's token hash by
    /// its public id, then the look-up by that hash (read and kept): introspecting an access token
    /// (PROTOCOL §8.16) of a session in use reads no SQL, as authenticating with its token does.
    public func sessionLookup(sessionID: UUID) async throws -> SessionLookup? {
        if let kept = sessionCache.answer(sessionID: sessionID) { return kept }
        let tokenHash = try await read("sessionLookupByID") { db in
            try db.rows("SELECT token_hash FROM sessions WHERE session_id = ?", [.uuidBytes(sessionID)])
                .first.map { try $0.bytes("token_hash") }
        }
        guard let tokenHash else { return nil }
        return try await sessionLookup(tokenHash: tokenHash)
    }

    /// Single-table statements, not `SessionLookupSQL`'s join, which SQLite re-prepares at every
    /// binding (see `readSessionLookup`).
    static func lookup(sessionID: UUID, _ db: SQLiteRunner) throws -> SessionLookup? {
        guard
            let session = try db.rows("SELECT * FROM sessions WHERE session_id = ?", [.uuidBytes(sessionID)])
                .first.map(SessionRecord.init(row:))
        else { return nil }
        return try lookup(of: session, db)
    }

    /// Read, judged and ended in one transaction: nothing can end or revive it in between.
    public func endSession(
        sessionID: UUID, owner: (appID: UUID, userID: String)?, reason: SessionEndReason, now: Int64
    ) async throws -> SessionLookup? {
        let ownerApp = owner?.appID
        let ownerUser = owner?.userID
        let found = try await transaction("endSession", invalidating: .none) { db -> SessionLookup? in
            guard let found = try Self.lookup(sessionID: sessionID, db) else { return nil }
            if let ownerApp, let ownerUser, found.session.appID != ownerApp || found.session.userID != ownerUser {
                return nil
            }
            if found.standing(at: now).isLive {
                let ended = try db.changes(
                    "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE session_id = ? AND ended_at IS NULL",
                    [.int64(now), .text(reason.rawValue), .uuidBytes(sessionID)])
                if ended > 0 {
                    try Self.endedOne(
                        sessionID, appID: found.session.appID, userID: found.session.userID, reason: reason,
                        actor: owner == nil ? .operator : .user, at: now, db)
                }
            }
            return found
        }
        if let found { invalidate(.session(tokenHash: found.session.tokenHash)) }
        return found
    }

    /// The other sessions live by `SessionStanding`, each logged, in one transaction.
    public func signOutOtherSessions(appID: UUID, userID: String, keeping tokenHash: [UInt8], now: Int64) async throws -> Int {
        try await transaction("signOutOtherSessions", invalidating: .user(appID: appID, userID: userID)) { db in
            try Self.endSessions(
                SessionEndingSQL.endUsers,
                [.uuid(appID), .text(userID), .int64(now), .text(SessionEndReason.signedOut.rawValue), .bytes(tokenHash)],
                reason: .signedOut, actor: .user, at: now, db)
        }
    }
}
