import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    /// The nonce's use is written first and inside the same transaction as the session, with
    /// BEGIN IMMEDIATE holding SQLite's write lock: of two sign-ins with one nonce, even from two
    /// processes, the second finds the first's row and fails, and a failure leaves no trace.
    public func createSession(_ session: NewSession) async throws -> UserRecord {
        // The key's mark is asked for only when the kept key row does not show a recent one:
        // most sign-ins with one key come within a minute of the last mark.
        let keyToMark = session.keyID.flatMap { id in
            catalogueCache.holdsRecentMark(keyID: id, at: session.createdAt) ? nil : id
        }
        // A new session changes no kept answer; the user's row changes only when the sign-in
        // wrote it, and only then are the user's kept sessions dropped (after the commit, before
        // the caller hears). A returning user whose claims change nothing invalidates nothing, so
        // a storm of sign-ins does not keep emptying the authenticated requests' cache.
        let (writerUsers, writerGenerations, writerSubscriptions) = (writerUsers, writerGenerations, writerSubscriptions)
        let (user, markedKey, wroteUser) = try await transaction("createSession", invalidating: .none) { db in
            // A returning user's row as this writer last saw it, or read (see `WriterUserCache`).
            let kept = writerUsers.user(appID: session.appID, userID: session.userID)
            let existing =
                try kept
                ?? db.rows(
                    "SELECT * FROM users WHERE app_id = ? AND user_id = ?",
                    [.uuid(session.appID), .text(session.userID)]
                ).first.map(UserRecord.init(row:))
            if existing?.suspended == true {
                // Refused before anything is written (a refusal that wrote would make the group
                // commit again without it); a used nonce still outranks the suspension (§5.4).
                throw try Self.isUsed(session.nonce, at: session.createdAt, db) ? StoreError.nonceAlreadyUsed : StoreError.userSuspended
            }
            try Self.claim(session.nonce, at: session.createdAt, db)

            let user: UserRecord
            let wroteUser: Bool
            if let existing, !existing.profile.changes(with: session.profile) {
                // A returning user whose claims change nothing: the row is not written again.
                user = existing
                wroteUser = false
            } else {
                user = try Self.upsertUser(session, db)
                wroteUser = true
            }

            // The generations as the writer sees them now: a cutoff before this in the writer's
            // order is recorded, one after it counts and ends this session.
            let generations = SessionGenerations(
                app: try Self.generation(of: .app(session.appID), db, writerGenerations),
                provider: try session.providerID.map { try Self.generation(of: .provider($0), db, writerGenerations) },
                key: try session.keyID.map { try Self.generation(of: .key($0), db, writerGenerations) },
                user: user.cutoff.generation)
            let device = session.device
            try db.execute(
                """
                INSERT INTO sessions (token_hash, session_id, app_id, user_id, created_at, expires_at, provider_id,
                                      key_id, app_generation, provider_generation, key_generation, user_generation,
                                      device_name, device_platform, device_app_version, last_seen_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?5)
                """,
                [
                    .bytes(session.tokenHash), .uuidBytes(session.sessionID), .uuid(session.appID), .text(session.userID),
                    .int64(session.createdAt), .int64(session.expiresAt), .optionalUUID(session.providerID),
                    .optionalUUID(session.keyID), .int64(generations.app), .optionalInt64(generations.provider),
                    .optionalInt64(generations.key), .int64(generations.user), .optionalText(device?.name),
                    .optionalText(device?.platform), .optionalText(device?.appVersion),
                ])
            var markedKey = false
            if let keyID = keyToMark {
                markedKey =
                    try db.changes(
                        "UPDATE provider_keys SET last_verified_at = ?1 WHERE id = ?2 AND (last_verified_at IS NULL OR last_verified_at <= ?1 - ?3)",
                        [.int64(session.createdAt), .uuid(keyID), .int64(KeyRecord.lastVerifiedResolutionSeconds)]) > 0
            }
            if try Self.subscribes(.sessionCreated, appID: session.appID, writerSubscriptions, db) {
                try Self.recordEvent(
                    .sessionCreated, appID: session.appID, userID: session.userID, at: session.createdAt,
                    data: { SecurityEventData.sessionCreated(session) }, db)
            }
            // Last, once every statement of this write has succeeded.
            if kept == nil || wroteUser { writerUsers.keep(user) }
            return (user, markedKey, wroteUser)
        }
        if wroteUser { invalidate(.user(appID: session.appID, userID: session.userID)) }
        // The key's row changed (once a minute per key at most): a kept copy would show the old mark.
        if markedKey { catalogueCache.invalidate(.everything) }
        return user
    }

    /// A first sign-in creates the user; a later one replaces the profile fields its claims carry
    /// and keeps the others. The row is read back by its key rather than with RETURNING, which
    /// would build an ephemeral table for the one row (see `claim`).
    private static func upsertUser(_ session: NewSession, _ db: SQLiteRunner) throws -> UserRecord {
        let profile = session.profile
        try db.execute(
            """
            INSERT INTO users (app_id, user_id, display_name, first_name, last_name, avatar_url,
                               suspended, created_at, updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, ?7)
            ON CONFLICT (app_id, user_id) DO UPDATE SET
                display_name = COALESCE(excluded.display_name, users.display_name),
                first_name = COALESCE(excluded.first_name, users.first_name),
                last_name = COALESCE(excluded.last_name, users.last_name),
                avatar_url = COALESCE(excluded.avatar_url, users.avatar_url),
                updated_at = excluded.updated_at
            """,
            [
                .uuid(session.appID), .text(session.userID), .optionalText(profile.displayName),
                .optionalText(profile.firstName), .optionalText(profile.lastName),
                .optionalText(profile.avatarURL), .int64(session.createdAt),
            ])
        let rows = try db.rows(
            "SELECT * FROM users WHERE app_id = ? AND user_id = ?",
            [.uuid(session.appID), .text(session.userID)])
        guard let row = rows.first else { throw StoreError.unavailable("the user just written was not found") }
        return try UserRecord(row: row)
    }

    /// The object's cutoff generation as the writer sees it: kept, or read and kept. An object
    /// with no row records 0 (the sign-in's verdict already refused unknown objects; the session's
    /// foreign key refuses an unknown app).
    private static func generation(
        of object: WriterCutoffGenerations.Object, _ db: SQLiteRunner, _ kept: WriterCutoffGenerations
    ) throws -> Int64 {
        if let generation = kept.generation(of: object) { return generation }
        let (table, id) =
            switch object {
            case .app(let id): ("apps", id)
            case .provider(let id): ("providers", id)
            case .key(let id): ("provider_keys", id)
            }
        let generation =
            try db.rows("SELECT cutoff_generation FROM \(table) WHERE id = ?", [.uuid(id)]).first?.int64("cutoff_generation") ?? 0
        kept.keep(generation, of: object)
        return generation
    }

    /// Whether `claim` would refuse the nonce, without recording anything.
    private static func isUsed(_ nonce: NonceClaim, at now: Int64, _ db: SQLiteRunner) throws -> Bool {
        switch nonce {
        case .serverNonce(let use):
            try SQLiteNonceUse.serverNonceUsed(hash: use.hash, expiresAt: use.expiresAt, db)
        case .registrationNonce(let appID, let nonce, _):
            try SQLiteNonceUse.registrationNonceSeen(appID: appID, nonce: nonce, now: now, db)
        }
    }

    /// Records the nonce's use, or throws `.nonceAlreadyUsed`. A registration nonce whose previous
    /// use expired before `now` is free again: its row is taken over rather than kept as a block.
    ///
    /// Whether the row was written is read from `changes`, not from a RETURNING clause: SQLite
    /// gathers a RETURNING statement's rows in an ephemeral table, a B-tree with its own page
    /// cache made and torn down on every execution, which on the sign-in's path costs more than the
    /// insert (docs/PERFORMANCE.md, "The durable write"). An upsert's DO UPDATE counts as a change
    /// only when its WHERE let it update.
    private static func claim(_ nonce: NonceClaim, at now: Int64, _ db: SQLiteRunner) throws {
        let claimed: Int
        switch nonce {
        case .serverNonce(let use):
            claimed = try db.changes(
                "INSERT INTO used_server_nonces (expires_at, hash) VALUES (?, ?) ON CONFLICT (expires_at, hash) DO NOTHING",
                [.int64(use.expiresAt), .bytes(use.hash)])
        case .registrationNonce(let appID, let nonce, let expiresAt):
            claimed = try db.changes(
                """
                INSERT INTO registration_nonces (app_id, nonce, expires_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (app_id, nonce) DO UPDATE SET expires_at = excluded.expires_at
                    WHERE registration_nonces.expires_at < ?4
                """,
                [.uuid(appID), .text(nonce), .int64(expiresAt), .int64(now)])
        }
        guard claimed == 1 else { throw StoreError.nonceAlreadyUsed }
    }

    public func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
        try await read("session") { db in
            try db.rows("SELECT * FROM sessions WHERE token_hash = ?", [.bytes(tokenHash)])
                .first.map(SessionRecord.init(row:))
        }
    }

    /// Answered from `sessionCache` when it holds the session (see there why that is as fresh as
    /// the file); otherwise read, and kept.
    public func sessionLookup(tokenHash: [UInt8]) async throws -> SessionLookup? {
        if let kept = sessionCache.answer(tokenHash: tokenHash) { return kept }
        let ticket = sessionCache.ticket()
        guard let read = try await readSessionLookup(tokenHash: tokenHash) else { return nil }
        sessionCache.keep(read, tokenHash: tokenHash, since: ticket)
        return read
    }

    private func readSessionLookup(tokenHash: [UInt8]) async throws -> SessionLookup? {
        // Single-table statements in one read, not `SessionLookupSQL`'s join: SQLite plans a join
        // in full and one like it came out marked to be re-prepared whenever its parameter is
        // bound, i.e. parsed again on every request (a sixth of an authenticated request in a
        // profile); a single-table look-up by primary key takes the planner's short cut.
        try await read("sessionLookup") { db in
            guard
                let session = try db.rows("SELECT * FROM sessions WHERE token_hash = ?", [.bytes(tokenHash)])
                    .first.map(SessionRecord.init(row:))
            else { return nil }
            return try Self.lookup(of: session, db)
        }
    }

    /// The rest of a session's look-up once its row is read: its user and its catalogue's cutoffs.
    static func lookup(of session: SessionRecord, _ db: SQLiteRunner) throws -> SessionLookup {
        let user = try db.rows(
            "SELECT * FROM users WHERE app_id = ? AND user_id = ?",
            [.uuid(session.appID), .text(session.userID)]
        ).first.map(UserRecord.init(row:))
        let cutoffs = CatalogueCutoffs(
            app: try Self.cutoff(table: "apps", id: session.appID, db),
            provider: try session.providerID.flatMap { try Self.cutoff(table: "providers", id: $0, db) },
            key: try session.keyID.flatMap { try Self.cutoff(table: "provider_keys", id: $0, db) })
        return SessionLookup(session: session, user: user, cutoffs: cutoffs)
    }

    /// The cutoff of one catalogue row; `nil` when there is no such row.
    static func cutoff(table: String, id: UUID, _ db: SQLiteRunner) throws -> ScopeCutoff? {
        try db.rows("SELECT cutoff_generation, cutoff_at, cutoff_reason FROM \(table) WHERE id = ?", [.uuid(id)])
            .first.flatMap { try ScopeCutoff(row: $0, prefix: "") }
    }

    /// One statement, once a minute per session at most: the request that finds the kept
    /// `lastSeenAt` a minute old writes it, every other request of that minute writes nothing.
    public func markSessionSeen(tokenHash: [UInt8], now: Int64) async throws {
        try await exclusive("markSessionSeen", invalidating: .session(tokenHash: tokenHash)) { db in
            try db.execute(
                """
                UPDATE sessions SET last_seen_at = ?1
                WHERE token_hash = ?2 AND ended_at IS NULL AND (last_seen_at IS NULL OR last_seen_at <= ?1 - ?3)
                """,
                [.int64(now), .bytes(tokenHash), .int64(SessionRecord.lastSeenResolutionSeconds)])
        }
    }

    /// Ends it only if it is live by `SessionStanding` (a cut-off session stays cut off), and logs
    /// the ending in the same transaction.
    @discardableResult
    public func revokeSession(tokenHash: [UInt8], now: Int64) async throws -> Bool {
        try await transaction("revokeSession", invalidating: .session(tokenHash: tokenHash)) { db in
            try Self.endSessions(
                SessionEndingSQL.endOne, [.int64(now), .bytes(tokenHash)], reason: .revoked, actor: .user, at: now, db) > 0
        }
    }
}
