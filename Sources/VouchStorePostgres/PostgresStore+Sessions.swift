import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// One statement, one round trip: `vouch_create_session_v3` (migration 8: v2 of migration 4, then
    /// the `session.created` event when anyone listens), which in one READ
    /// COMMITTED transaction of its own does, in this order:
    ///
    /// 1. The nonce's use is claimed by INSERT … ON CONFLICT on its primary key. Of two sign-ins
    ///    with one nonce the second waits on the first's uncommitted row, then finds it and writes
    ///    nothing: exactly one wins, on any number of instances. The loser's exception (SQLSTATE
    ///    VU001) is `.nonceAlreadyUsed`, which therefore outranks a suspension as §5.4 orders.
    /// 2. The user row is upserted, which takes its row lock (or waits for it), and the upsert
    ///    returns the row's latest committed `suspended`. `setSuspended` takes the same lock, so
    ///    either the suspension committed first and this sign-in is refused (VU002,
    ///    `.userSuspended`; the exception undoes the claim and the profile update), or this
    ///    sign-in commits first and the suspension's UPDATE, which runs after it got the lock,
    ///    ends the new session too. No session outlives a suspension.
    /// 3. The app's, provider's and key's cutoff generations are read FOR KEY SHARE, which a
    ///    cutoff's FOR UPDATE waits for (and which waits for a cutoff under way): the session
    ///    records the generations that are current when it commits (`cutOff`).
    /// 4. The session is inserted, and the key's last verification marked when it is older than
    ///    `KeyRecord.lastVerifiedResolutionSeconds`.
    ///
    /// Sent one by one between BEGIN and COMMIT, the same statements would take five or six round
    /// trips, each parsed and planned again by the server (docs/PERFORMANCE.md, "PostgreSQL"); the
    /// call itself is prepared (`CreateSessionStatement`).
    public func createSession(_ session: NewSession) async throws -> UserRecord {
        try await single("createSession") { db in
            guard let row = try await db.rows(CreateSessionStatement(session: session)).first else {
                throw StoreError.unavailable("vouch_create_session returned no row")
            }
            return try UserRecord(postgres: row)
        }
    }

    public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
        try await single("session") { db in
            try await db.rows("SELECT * FROM sessions WHERE token_hash = \(tokenHash.bytea)")
                .first.map(SessionRecord.init(postgres:))
        }
    }

    /// One prepared statement, one round trip (`SessionLookupStatement`): the session joined to
    /// its user and its objects' cutoffs.
    public func sessionLookup(tokenHash: [UInt8]) async throws -> SessionLookup? {
        try await single("sessionLookup") { db in
            try await db.rows(SessionLookupStatement(tokenHash: tokenHash))
                .first.map { try SessionLookupSQL.decode(PostgresRecordRow($0)) }
        }
    }

    /// Once a minute per session at most: a request within the minute matches no row.
    public func markSessionSeen(tokenHash: [UInt8], now: Int64) async throws {
        try await single("markSessionSeen") { db in
            try await db.execute(
                """
                UPDATE sessions SET last_seen_at = \(now)
                WHERE token_hash = \(tokenHash.bytea) AND ended_at IS NULL
                  AND (last_seen_at IS NULL OR last_seen_at <= \(now) - \(SessionRecord.lastSeenResolutionSeconds))
                """)
        }
    }

    /// One statement, as before the log: it ends the session if it is live by `SessionStanding`
    /// (a cut-off session stays cut off) and appends its entry (`SessionEndingLog`).
    @discardableResult
    public func revokeSession(tokenHash: [UInt8], now: Int64) async throws -> Bool {
        try await single("revokeSession") { db in
            try await Self.endLogged(
                SessionEndingLog.endLive(where: "s.token_hash = $5"), now: now, reason: .revoked, actor: .user,
                selectorValues: [tokenHash.bytea], db) > 0
        }
    }
}
