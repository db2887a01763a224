import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// One READ COMMITTED transaction, in this order:
    ///
    /// 1. The nonce's use is claimed by INSERT … ON CONFLICT on its primary key. Of two sign-ins
    ///    with one nonce the second waits on the first's uncommitted row, then finds it and writes
    ///    nothing: exactly one wins, on any number of instances.
    /// 2. The user row is upserted, which takes its row lock (or waits for it), and the upsert
    ///    returns the row's latest committed `suspended`. `setSuspended` takes the same lock, so
    ///    either the suspension committed first and this sign-in is refused, or this sign-in
    ///    commits first and the suspension's UPDATE, which runs after it got the lock, ends the new
    ///    session too. No session outlives a suspension.
    /// 3. The session is inserted.
    public func createSession(_ session: NewSession) async throws -> UserRecord {
        try await transaction("createSession") { db in
            try await Self.claim(session.nonce, at: session.createdAt, db)

            let profile = session.profile
            let rows = try await db.rows("""
                INSERT INTO users (app_id, user_id, display_name, first_name, last_name, avatar_url,
                                   suspended, created_at, updated_at)
                VALUES (\(session.appID), \(session.userID), \(profile.displayName), \(profile.firstName),
                        \(profile.lastName), \(profile.avatarURL), false, \(session.createdAt), \(session.createdAt))
                ON CONFLICT (app_id, user_id) DO UPDATE SET
                    display_name = COALESCE(EXCLUDED.display_name, users.display_name),
                    first_name = COALESCE(EXCLUDED.first_name, users.first_name),
                    last_name = COALESCE(EXCLUDED.last_name, users.last_name),
                    avatar_url = COALESCE(EXCLUDED.avatar_url, users.avatar_url),
                    updated_at = EXCLUDED.updated_at
                RETURNING *
                """)
            guard let row = rows.first else { throw StoreError.unavailable("user upsert returned no row") }
            let user = try UserRecord(postgres: row)
            // Thrown inside the transaction: the profile update and the nonce claim roll back.
            if user.suspended { throw StoreError.userSuspended }

            try await db.execute("""
                INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at)
                VALUES (\(session.tokenHash.bytea), \(session.appID), \(session.userID),
                        \(session.createdAt), \(session.expiresAt))
                """)
            // Last, so the key's row lock is held only until the commit that follows; a key that
            // verified within the resolution is not matched, so most sign-ins take no lock on it.
            if let keyID = session.keyID {
                let now = session.createdAt, resolution = KeyRecord.lastVerifiedResolutionSeconds
                try await db.execute("""
                    UPDATE provider_keys SET last_verified_at = \(now)
                    WHERE id = \(keyID) AND (last_verified_at IS NULL OR last_verified_at <= \(now) - \(resolution))
                    """)
            }
            return user
        }
    }

    /// Records the nonce's use, or throws `.nonceAlreadyUsed`. A registration nonce whose previous
    /// use expired before `now` is free again: its row is taken over (the ON CONFLICT condition is
    /// evaluated on the latest committed row, so two takeovers cannot both succeed).
    private static func claim(_ nonce: NonceClaim, at now: Int64, _ db: PostgresRunner) async throws {
        let claimed: [PostgresRow]
        switch nonce {
        case .serverNonce(let hash, let expiresAt):
            claimed = try await db.rows("""
                INSERT INTO used_server_nonces (hash, expires_at) VALUES (\(hash.bytea), \(expiresAt))
                ON CONFLICT (hash) DO NOTHING
                RETURNING 1
                """)
        case .registrationNonce(let appID, let nonce, let expiresAt):
            claimed = try await db.rows("""
                INSERT INTO registration_nonces (app_id, nonce, expires_at) VALUES (\(appID), \(nonce), \(expiresAt))
                ON CONFLICT (app_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
                    WHERE registration_nonces.expires_at < \(now)
                RETURNING 1
                """)
        }
        guard !claimed.isEmpty else { throw StoreError.nonceAlreadyUsed }
    }

    public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
        try await single("session") { db in
            try await db.rows("SELECT * FROM sessions WHERE token_hash = \(tokenHash.bytea)")
                .first.map(SessionRecord.init(postgres:))
        }
    }

    /// One round trip where the protocol's default would make two.
    public func sessionAndUser(tokenHash: [UInt8]) async throws -> (session: SessionRecord, user: UserRecord?)? {
        try await single("sessionAndUser") { db in
            try await db.rows("\(unescaped: SessionWithUser.selection) WHERE s.token_hash = \(tokenHash.bytea)")
                .first.map { try SessionWithUser.decode(PostgresRecordRow($0)) }
        }
    }

    public func revokeSession(tokenHash: [UInt8], now: Int64) async throws {
        try await single("revokeSession") { db in
            try await db.execute("""
                UPDATE sessions SET ended_at = \(now), end_reason = \(SessionEndReason.revoked.rawValue)
                WHERE token_hash = \(tokenHash.bytea) AND ended_at IS NULL AND expires_at > \(now)
                """)
        }
    }
}
