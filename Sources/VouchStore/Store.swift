import Foundation
import VouchProtocol

/// Everything the server keeps, behind one protocol so that SQLite (one instance) and
/// PostgreSQL (many instances) are interchangeable and held to one conformance suite.
///
/// Every guarantee the server relies on is a method here, done by the database rather than by a
/// lock in one process: a nonce is used at most once (`createSession`), a revocation or suspension
/// is visible to the very next `session(tokenHash:)`, on this instance or another.
public protocol Store: Sendable {
    // MARK: Apps
    func createApp(_ app: AppRecord) async throws
    func app(id: UUID) async throws -> AppRecord?
    /// All apps, oldest first.
    func apps() async throws -> [AppRecord]
    /// Changes only the fields given (`nil` leaves a field as stored) in one statement, so two
    /// concurrent updates of different fields both survive; returns the app as updated. Throws
    /// `StoreError.notFound` for an unknown app.
    func updateApp(id: UUID, changes: AppChanges) async throws -> AppRecord

    // MARK: Providers
    func createProvider(_ provider: ProviderRecord) async throws
    func provider(id: UUID) async throws -> ProviderRecord?
    /// Idempotent. Throws `.notFound` when the provider or the app does not exist.
    func bindProvider(_ providerID: UUID, toApp appID: UUID) async throws
    /// Idempotent. Throws `.notFound` when the provider or the app does not exist.
    func unbindProvider(_ providerID: UUID, fromApp appID: UUID) async throws
    /// Applies `change` in one transaction and returns the provider as changed. Throws `.notFound`
    /// for an unknown provider and `.alreadyExists` when the key source's issuer is another
    /// provider's (an `iss` must choose one provider). A changed or removed key source forgets
    /// what was fetched from the old one. `createProvider` refuses a taken issuer the same way.
    func updateProvider(id: UUID, change: ProviderChange) async throws -> ProviderRecord

    // MARK: Key sources (`ProviderKeySource`, `KeySetState`)
    /// The provider's fetched key set and the state of fetching it, with each key's sign-ins
    /// since `usesSince` (rounded down to its hour); `nil` before the first fetch began.
    func keySetState(providerID: UUID, usesSince: Int64) async throws -> KeySetState?
    /// Takes the turn to fetch the provider's keys for `source`: `true`, and the attempt's time
    /// recorded, unless a fetch for that source began after `unlessBegunAfter`. One instance
    /// fetches while the others use what it stores, however many of them find a key missing.
    func beginKeySetFetch(providerID: UUID, source: String, now: Int64, unlessBegunAfter: Int64) async throws -> Bool
    /// Stores a fetch's outcome: an accepted document replaces the last good one and marks its
    /// keys seen; a failure keeps the last good document and records why. A change of health is
    /// told as `key_source.failing` or `key_source.recovered` to each app the provider serves, in
    /// the same transaction. A fetch for a source the provider no longer has is dropped.
    @discardableResult
    func finishKeySetFetch(_ fetch: KeySetFetch) async throws -> KeySetHealthChange
    /// Adds instances' counts of sign-ins per fetched key and hour.
    func addSourceKeyUses(_ uses: [SourceKeyUse]) async throws

    // MARK: Keys
    /// Throws `.notFound` for an unknown provider, `.alreadyExists` for a key id in use or a key
    /// (same fingerprint) that the provider already has, in any status: a deleted key cannot come
    /// back under a new id. A new key has never verified anything: `lastVerifiedAt` is not taken
    /// from the record.
    func createKey(_ key: KeyRecord) async throws
    func key(id: UUID) async throws -> KeyRecord?
    /// The provider's keys, tombstones included, oldest first.
    func keys(ofProvider providerID: UUID) async throws -> [KeyRecord]
    /// Sets the status (a deletion is `.deleted`: the row stays as a tombstone); returns the
    /// updated key. A tombstone is final: deleting it again returns it unchanged, any other status
    /// throws `.tombstone`, decided by the database in the same statement as the write so that a
    /// deletion racing an enable can never leave a deleted key active. Throws `.notFound` for an
    /// unknown key.
    func setKeyStatus(id: UUID, to status: KeyStatus) async throws -> KeyRecord

    // MARK: Registration secrets (Sinch profile)
    /// Throws `.notFound` for an unknown app.
    func createRegistrationSecret(_ secret: RegistrationSecretRecord) async throws
    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecretRecord?
    /// The app's secrets, revoked ones included, oldest first.
    func registrationSecrets(appID: UUID) async throws -> [RegistrationSecretRecord]
    /// Retires a secret from `at` on (now, or later for a grace period). A revocation never moves
    /// an earlier one later. Throws `.notFound` when the app has no such secret.
    func revokeRegistrationSecret(applicationKey: UUID, appID: UUID, at: Int64) async throws -> RegistrationSecretRecord
    /// Whether a registration nonce of this app was seen and has not yet expired at `now`.
    func registrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool

    // MARK: Nonces (Layer profile; the nonce itself is stateless, only its use is recorded)
    /// Whether a server nonce with this hash was already used.
    func serverNonceUsed(hash: [UInt8], expiresAt: Int64) async throws -> Bool

    // MARK: Users
    func user(appID: UUID, userID: String) async throws -> UserRecord?
    /// Sets suspension, creating the user row if there was none (so a user can be suspended before
    /// their first sign-in). Suspending ends every live session of the user with
    /// `.userSuspended` in the same transaction. Throws `.notFound` for an unknown app.
    func setSuspended(appID: UUID, userID: String, suspended: Bool, now: Int64) async throws -> UserRecord
    /// Sessions of the user that are live at `now` (`SessionStanding`: neither ended, expired nor
    /// cut off).
    func activeSessionCount(appID: UUID, userID: String, now: Int64) async throws -> Int
    /// Ends every live session of the user (`.revoked`; live by `SessionStanding`, so a cut-off
    /// session is left as it is); returns how many, each logged (`sessionEndings`).
    @discardableResult
    func revokeSessions(appID: UUID, userID: String, now: Int64) async throws -> Int

    // MARK: Sign-in
    /// Every fact a token's verdict reads (the app, the key or secret it names, its provider's
    /// binding, its nonce's use, its user's suspension), as one operation: the one read a sign-in
    /// makes before `createSession`.
    func signInFacts(_ query: SignInFactsQuery) async throws -> SignInFacts

    // MARK: Sessions
    /// One transaction: records the nonce's use (throws `.nonceAlreadyUsed` if it was used, and
    /// writes nothing), refuses a suspended user (`.userSuspended`, nothing written), upserts the
    /// user with the non-nil profile fields, inserts the session, and moves the verifying key's
    /// `lastVerifiedAt` to `createdAt` when it is older by at least
    /// `KeyRecord.lastVerifiedResolutionSeconds` (never backwards).
    func createSession(_ session: NewSession) async throws -> UserRecord
    func session(tokenHash: [UInt8]) async throws -> SessionRecord?
    /// The session with its user and its objects' current cutoffs, read together in one store
    /// operation: what every authenticated request needs to judge it (`SessionStanding`).
    func sessionLookup(tokenHash: [UInt8]) async throws -> SessionLookup?
    /// Ends one session (`.revoked`) if it is live by `SessionStanding` (not ended, expired or cut
    /// off); no error for an unknown or ended one. Returns whether it ended one (and logged it).
    @discardableResult
    func revokeSession(tokenHash: [UInt8], now: Int64) async throws -> Bool
    /// Moves the session's `lastSeenAt` to `now` when it is older by at least
    /// `SessionRecord.lastSeenResolutionSeconds` (never backwards); an ended or unknown session is
    /// left alone.
    func markSessionSeen(tokenHash: [UInt8], now: Int64) async throws

    // MARK: Devices (every session is a device)
    /// The user's sessions that are live at `now` by `SessionStanding`, oldest first.
    func liveSessions(appID: UUID, userID: String, now: Int64) async throws -> [SessionLookup]
    /// The session with this public id, in any state; `nil` when there is none.
    func sessionLookup(sessionID: UUID) async throws -> SessionLookup?
    /// Ends the session with this public id with `reason` if it is live (`SessionStanding`), in one
    /// transaction that also checks it belongs to `owner` when given (a user's own view). Returns the session as it
    /// was found, `nil` when unknown (or another user's); whether it was live is the caller's to
    /// judge from it.
    func endSession(
        sessionID: UUID, owner: (appID: UUID, userID: String)?, reason: SessionEndReason, now: Int64
    ) async throws -> SessionLookup?
    /// Ends (`.signedOut`) every live session of the user (by `SessionStanding`) but the one with
    /// `keeping`; returns how many.
    func signOutOtherSessions(appID: UUID, userID: String, keeping tokenHash: [UInt8], now: Int64) async throws -> Int

    // MARK: Cutoffs
    /// Ends every session of `target` that exists when this returns, and none made after, by moving
    /// the object's cutoff generation on in one transaction that also counts the sessions it
    /// ended. A sign-in racing it is ordered by the database: either its session is counted and
    /// ended, or it records the new generation and lives.
    ///
    /// Throws `.notFound` for an unknown object (a user without a row included) and `.tombstone`
    /// for a deleted key.
    func cutOff(_ target: CutoffTarget, reason: String?, now: Int64) async throws -> CutoffResult
    /// The object's current cutoff (`.none` before the first). Throws `.notFound` as `cutOff`.
    func cutoff(of target: CutoffTarget) async throws -> ScopeCutoff
    /// How many live sessions `cutOff(target)` would end now (for a confirmation).
    func liveSessionCount(of target: CutoffTarget, now: Int64) async throws -> Int

    // MARK: Server secrets
    /// Returns the secret stored under `name`, or stores `candidate` and returns it when there is
    /// none yet, atomically, so that every instance ends up with the same secret.
    func secret(named name: String, orInsert candidate: [UInt8]) async throws -> [UInt8]

    // MARK: Audit log
    /// Writes the entries in one statement (all or none), in the order given.
    func appendAudit(_ entries: [NewAuditEntry]) async throws
    /// The entries matching `query`, newest (highest id) first, at most `query.limit`.
    func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry]
    /// Deletes the entries older than `before` (Unix seconds); returns how many went.
    @discardableResult
    func purgeAudit(before: Int64) async throws -> Int

    // MARK: Housekeeping
    /// Deletes used nonces, registration nonces and live tickets past their expiry, sessions
    /// that expired more than `sessionGraceSeconds` ago, and fetched keys' counts of sign-ins
    /// older than `SourceKeyUse.retentionSeconds`. Returns what went, by kind.
    @discardableResult
    func purgeExpired(now: Int64, sessionGraceSeconds: Int64) async throws -> PurgedRows
    /// Sessions of every app that are neither ended nor expired at `now`: one COUNT for the
    /// live-sessions gauge, read by housekeeping on its interval, never per request.
    func liveSessionCount(now: Int64) async throws -> Int
    /// Deletes session endings logged before `before` (Unix seconds); returns how many went. Only a
    /// prefix of the log goes (up to the first entry logged at or after `before`), so that
    /// `SessionEndingsPage.missedEntries(after:)` tells a reader every entry it lost.
    @discardableResult
    func purgeSessionEndings(before: Int64) async throws -> Int

    // MARK: The log of session endings (`SessionEnding`)
    // `revokeSession`, `endSession`, `signOutOtherSessions` and `revokeSessions` append one
    // `.session` entry per session they end; `setSuspended` (suspending) one `.user` entry;
    // `cutOff` one entry of its scope with the new generation. Each in the transaction of its
    // ending, positions handed out in commit order.

    /// The entries after `position`, ascending, at most `limit`, with where the log stands, read
    /// together (one snapshot).
    func sessionEndings(after position: Int64, limit: Int) async throws -> SessionEndingsPage

    // MARK: Live-channel tickets
    func createLiveTicket(_ ticket: LiveTicket) async throws
    /// Deletes the ticket and returns the hash of its session's token if it had not expired at
    /// `now`; `nil` for an unknown, used or expired ticket. Two concurrent calls for one ticket
    /// never both succeed.
    func consumeLiveTicket(hash: [UInt8], now: Int64) async throws -> [UInt8]?

    // MARK: Vouch's signing keys (`SigningKeyRecord`)
    /// Every signing key kept, by ascending `sequence`.
    func signingKeys() async throws -> [SigningKeyRecord]
    /// Adds the key unless its `sequence` (or `keyID`) is taken; returns whether it was added.
    /// Two instances adding the same successor at once: exactly one succeeds, the other gets
    /// `false` and nothing written.
    func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool
    /// Deletes the keys with a sequence below `sequence` (keys no longer published); returns how
    /// many went.
    @discardableResult
    func deleteSigningKeys(below sequence: Int64) async throws -> Int

    // MARK: Service credentials (`ServiceCredentialRecord`)
    /// Throws `.notFound` for an unknown app, `.alreadyExists` for an id or hash in use.
    func createServiceCredential(_ credential: ServiceCredentialRecord) async throws
    /// The credential with this hash, revoked or not; `nil` for none.
    func serviceCredential(hash: [UInt8]) async throws -> ServiceCredentialRecord?
    /// The app's credentials, revoked ones included, oldest first.
    func serviceCredentials(appID: UUID) async throws -> [ServiceCredentialRecord]
    /// Revokes the app's credential (a revoked one is returned as it is, its first revocation
    /// time kept); returns it. Throws `.notFound` when the app has no such credential.
    func revokeServiceCredential(id: UUID, appID: UUID, now: Int64) async throws -> ServiceCredentialRecord

    // MARK: Webhook endpoints (`WebhookEndpointRecord`)
    /// Throws `.notFound` for an unknown app, `.alreadyExists` for an id in use, `.limitReached`
    /// when the app has `limit` endpoints already (counted and written at once: two racing
    /// creations cannot both pass the count).
    func createWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws
    /// The app's endpoints, paused ones included, oldest first (ties by id).
    func webhookEndpoints(appID: UUID) async throws -> [WebhookEndpointRecord]
    /// Applies `change` to the app's endpoint in one statement and stamps `updatedAt` with `now`;
    /// returns it as it now is. Throws `.notFound` when the app has no such endpoint.
    func updateWebhookEndpoint(id: UUID, appID: UUID, change: WebhookEndpointChange, now: Int64) async throws -> WebhookEndpointRecord
    /// Stops its deliveries with `reason`; an endpoint already paused keeps its first pause's time
    /// and reason. Returns it. Throws `.notFound` when the app has no such endpoint.
    func pauseWebhookEndpoint(id: UUID, appID: UUID, reason: String, now: Int64) async throws -> WebhookEndpointRecord
    /// Throws `.notFound` when the app has no such endpoint.
    func deleteWebhookEndpoint(id: UUID, appID: UUID) async throws

    // MARK: Security events and their deliveries (`SecurityEventRecord`, `WebhookDelivery`)
    // Every operation above that changes what an event tells of writes the event in its own
    // transaction, with one pending delivery per unpaused endpoint of the app that subscribes to
    // the kind; `session.created` is written only when such an endpoint exists, every other kind
    // always (`SecurityEventKind.isWrittenWithoutSubscriber`; docs: Invariants).

    /// The app's events after `cursor`, in cursor order, of `kinds` only (every kind when `nil`),
    /// at most `limit`. An event that commits after this read never sorts at or below a cursor it
    /// returned (`SecurityEventCursor`).
    func securityEvents(
        appID: UUID, after cursor: SecurityEventCursor, kinds: [SecurityEventKind]?, limit: Int
    ) async throws -> [(cursor: SecurityEventCursor, event: SecurityEventRecord)]
    /// Where a reader that wants the app's events from `since` (Unix seconds) on starts: just
    /// before the first such event, or after the last event when there is none yet.
    func securityEventCursor(appID: UUID, since: Int64) async throws -> SecurityEventCursor
    /// Writes `session.ended` (kind `expired`, its time the session's `expires_at`) for sessions
    /// that expired unended since the last call, up to `now`, of apps with an unpaused endpoint
    /// subscribing to `session.ended` (an expiry comes with every session: nobody else pays for
    /// it), at most `limit`; returns how many. The first call on a database only starts the
    /// count at `now`. Calls from many instances never write one expiry twice.
    func recordSessionExpiries(now: Int64, limit: Int) async throws -> Int
    /// Leases up to `limit` deliveries that are due at `now` (Unix ms) until `now + lease`: each
    /// pending, its endpoint unpaused, no lease running, and no earlier pending event of the same
    /// user owed to the same endpoint (so a user's events arrive in order). On a store shared by
    /// many instances, two claims never return the same delivery while its lease runs.
    func claimWebhookDeliveries(now: Int64, lease: Int64, limit: Int) async throws -> [ClaimedWebhookDelivery]
    /// Records an attempt and ends the lease: delivered, due again, or failed with the endpoint
    /// paused in the same transaction. An attempt on a delivery no longer pending (replayed and
    /// delivered elsewhere, or its endpoint deleted) changes nothing.
    func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws
    /// The endpoint's most recent deliveries, newest event first, at most `limit`. Throws
    /// `.notFound` when the app has no such endpoint.
    func webhookDeliveries(endpointID: UUID, appID: UUID, limit: Int) async throws -> [WebhookDelivery]
    /// Makes a delivery pending and due at `now` (Unix ms) again, whatever its state: the same
    /// event, with the same id, is sent again. Throws `.notFound` when the endpoint has no such
    /// delivery.
    func replayWebhookDelivery(endpointID: UUID, appID: UUID, eventID: UUID, now: Int64) async throws -> WebhookDelivery
    /// Deletes the events written before `before` (Unix seconds) that no endpoint is still owed,
    /// with their deliveries; returns how many events.
    @discardableResult
    func purgeSecurityEvents(before: Int64) async throws -> Int

    // MARK: Erasure and export (`UserErasure`, `UserDataExport`)
    /// Forgets the user in one transaction: ends their live sessions (each logged and evented as
    /// signed out by an operator), writes `user.deleted`, deletes their
    /// sessions' rows, their live tickets and their own row, and replaces their id by `pseudonym`
    /// in the audit log's entries about them. Throws `.notFound` when the app has no such user.
    func eraseUser(appID: UUID, userID: String, pseudonym: String, now: Int64) async throws -> UserErasure
    /// What the store holds about the user (at most `UserDataExport.rowLimit` sessions and events
    /// each), or `nil` when the app has no such user.
    func userData(appID: UUID, userID: String) async throws -> UserDataExport?

    /// Cheap round trip for `GET /health`.
    func ping() async throws
    /// Releases the database; the store must not be used afterwards.
    func close() async throws
}

extension Store {
    /// Changes the name and the session lifetime only.
    public func updateApp(id: UUID, name: String?, sessionTTLSeconds: Int64?) async throws -> AppRecord {
        try await updateApp(id: id, changes: AppChanges(name: name, sessionTTLSeconds: sessionTTLSeconds))
    }
}
