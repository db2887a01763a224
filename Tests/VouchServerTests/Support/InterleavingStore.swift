import Foundation
import VouchProtocol
import VouchStore

/// A real store with one interleaving forced: `beforeCreateSession` runs after the token was
/// verified and just before the sign-in transaction, so a test can make a race that real traffic
/// only hits by chance (a suspension landing between the policy's look-up and the transaction)
/// happen every time. Everything else goes straight to the wrapped store.
struct InterleavingStore: Store {
    let base: any Store
    let beforeCreateSession: @Sendable (NewSession) async throws -> Void

    func createSession(_ session: NewSession) async throws -> UserRecord {
        try await beforeCreateSession(session)
        return try await base.createSession(session)
    }

    func createApp(_ app: AppRecord) async throws { try await base.createApp(app) }
    func app(id: UUID) async throws -> AppRecord? { try await base.app(id: id) }
    func apps() async throws -> [AppRecord] { try await base.apps() }
    func updateApp(id: UUID, changes: AppChanges) async throws -> AppRecord { try await base.updateApp(id: id, changes: changes) }
    func createProvider(_ provider: ProviderRecord) async throws { try await base.createProvider(provider) }
    func provider(id: UUID) async throws -> ProviderRecord? { try await base.provider(id: id) }
    func bindProvider(_ providerID: UUID, toApp appID: UUID) async throws { try await base.bindProvider(providerID, toApp: appID) }
    func unbindProvider(_ providerID: UUID, fromApp appID: UUID) async throws { try await base.unbindProvider(providerID, fromApp: appID) }
    func updateProvider(id: UUID, change: ProviderChange) async throws -> ProviderRecord { try await base.updateProvider(id: id, change: change) }
    func keySetState(providerID: UUID, usesSince: Int64) async throws -> KeySetState? {
        try await base.keySetState(providerID: providerID, usesSince: usesSince)
    }
    func beginKeySetFetch(providerID: UUID, source: String, now: Int64, unlessBegunAfter: Int64) async throws -> Bool {
        try await base.beginKeySetFetch(providerID: providerID, source: source, now: now, unlessBegunAfter: unlessBegunAfter)
    }
    func finishKeySetFetch(_ fetch: KeySetFetch) async throws -> KeySetHealthChange { try await base.finishKeySetFetch(fetch) }
    func addSourceKeyUses(_ uses: [SourceKeyUse]) async throws { try await base.addSourceKeyUses(uses) }
    func createKey(_ key: KeyRecord) async throws { try await base.createKey(key) }
    func key(id: UUID) async throws -> KeyRecord? { try await base.key(id: id) }
    func keys(ofProvider providerID: UUID) async throws -> [KeyRecord] { try await base.keys(ofProvider: providerID) }
    func setKeyStatus(id: UUID, to status: KeyStatus) async throws -> KeyRecord { try await base.setKeyStatus(id: id, to: status) }
    func createRegistrationSecret(_ secret: RegistrationSecretRecord) async throws { try await base.createRegistrationSecret(secret) }
    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecretRecord? {
        try await base.registrationSecret(applicationKey: applicationKey)
    }
    func registrationSecrets(appID: UUID) async throws -> [RegistrationSecretRecord] { try await base.registrationSecrets(appID: appID) }
    func revokeRegistrationSecret(applicationKey: UUID, appID: UUID, at: Int64) async throws -> RegistrationSecretRecord {
        try await base.revokeRegistrationSecret(applicationKey: applicationKey, appID: appID, at: at)
    }
    func liveSessionCount(now: Int64) async throws -> Int { try await base.liveSessionCount(now: now) }
    func purgeSessionEndings(before: Int64) async throws -> Int { try await base.purgeSessionEndings(before: before) }
    func sessionEndings(after position: Int64, limit: Int) async throws -> SessionEndingsPage {
        try await base.sessionEndings(after: position, limit: limit)
    }
    func createLiveTicket(_ ticket: LiveTicket) async throws { try await base.createLiveTicket(ticket) }
    func consumeLiveTicket(hash: [UInt8], now: Int64) async throws -> [UInt8]? { try await base.consumeLiveTicket(hash: hash, now: now) }
    func signingKeys() async throws -> [SigningKeyRecord] { try await base.signingKeys() }
    func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool { try await base.addSigningKey(key) }
    func deleteSigningKeys(below sequence: Int64) async throws -> Int { try await base.deleteSigningKeys(below: sequence) }
    func createServiceCredential(_ credential: ServiceCredentialRecord) async throws { try await base.createServiceCredential(credential) }
    func serviceCredential(hash: [UInt8]) async throws -> ServiceCredentialRecord? { try await base.serviceCredential(hash: hash) }
    func serviceCredentials(appID: UUID) async throws -> [ServiceCredentialRecord] { try await base.serviceCredentials(appID: appID) }
    func revokeServiceCredential(id: UUID, appID: UUID, now: Int64) async throws -> ServiceCredentialRecord {
        try await base.revokeServiceCredential(id: id, appID: appID, now: now)
    }
    func createWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws {
        try await base.createWebhookEndpoint(endpoint, limit: limit)
    }
    func webhookEndpoints(appID: UUID) async throws -> [WebhookEndpointRecord] { try await base.webhookEndpoints(appID: appID) }
    func updateWebhookEndpoint(id: UUID, appID: UUID, change: WebhookEndpointChange, now: Int64) async throws -> WebhookEndpointRecord {
        try await base.updateWebhookEndpoint(id: id, appID: appID, change: change, now: now)
    }
    func pauseWebhookEndpoint(id: UUID, appID: UUID, reason: String, now: Int64) async throws -> WebhookEndpointRecord {
        try await base.pauseWebhookEndpoint(id: id, appID: appID, reason: reason, now: now)
    }
    func deleteWebhookEndpoint(id: UUID, appID: UUID) async throws { try await base.deleteWebhookEndpoint(id: id, appID: appID) }
    func securityEvents(
        appID: UUID, after cursor: SecurityEventCursor, kinds: [SecurityEventKind]?, limit: Int
    ) async throws -> [(cursor: SecurityEventCursor, event: SecurityEventRecord)] {
        try await base.securityEvents(appID: appID, after: cursor, kinds: kinds, limit: limit)
    }
    func recordSessionExpiries(now: Int64, limit: Int) async throws -> Int {
        try await base.recordSessionExpiries(now: now, limit: limit)
    }
    func securityEventCursor(appID: UUID, since: Int64) async throws -> SecurityEventCursor {
        try await base.securityEventCursor(appID: appID, since: since)
    }
    func claimWebhookDeliveries(now: Int64, lease: Int64, limit: Int) async throws -> [ClaimedWebhookDelivery] {
        try await base.claimWebhookDeliveries(now: now, lease: lease, limit: limit)
    }
    func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws { try await base.finishWebhookAttempt(attempt) }
    func webhookDeliveries(endpointID: UUID, appID: UUID, limit: Int) async throws -> [WebhookDelivery] {
        try await base.webhookDeliveries(endpointID: endpointID, appID: appID, limit: limit)
    }
    func replayWebhookDelivery(endpointID: UUID, appID: UUID, eventID: UUID, now: Int64) async throws -> WebhookDelivery {
        try await base.replayWebhookDelivery(endpointID: endpointID, appID: appID, eventID: eventID, now: now)
    }
    func purgeSecurityEvents(before: Int64) async throws -> Int { try await base.purgeSecurityEvents(before: before) }
    func eraseUser(appID: UUID, userID: String, pseudonym: String, now: Int64) async throws -> UserErasure {
        try await base.eraseUser(appID: appID, userID: userID, pseudonym: pseudonym, now: now)
    }
    func userData(appID: UUID, userID: String) async throws -> UserDataExport? {
        try await base.userData(appID: appID, userID: userID)
    }
    func registrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool {
        try await base.registrationNonceSeen(appID: appID, nonce: nonce, now: now)
    }
    func serverNonceUsed(hash: [UInt8], expiresAt: Int64) async throws -> Bool {
        try await base.serverNonceUsed(hash: hash, expiresAt: expiresAt)
    }
    func signInFacts(_ query: SignInFactsQuery) async throws -> SignInFacts { try await base.signInFacts(query) }
    func user(appID: UUID, userID: String) async throws -> UserRecord? { try await base.user(appID: appID, userID: userID) }
    func setSuspended(appID: UUID, userID: String, suspended: Bool, now: Int64) async throws -> UserRecord {
        try await base.setSuspended(appID: appID, userID: userID, suspended: suspended, now: now)
    }
    func activeSessionCount(appID: UUID, userID: String, now: Int64) async throws -> Int {
        try await base.activeSessionCount(appID: appID, userID: userID, now: now)
    }
    func revokeSessions(appID: UUID, userID: String, now: Int64) async throws -> Int {
        try await base.revokeSessions(appID: appID, userID: userID, now: now)
    }
    func session(tokenHash: [UInt8]) async throws -> SessionRecord? { try await base.session(tokenHash: tokenHash) }
    func revokeSession(tokenHash: [UInt8], now: Int64) async throws -> Bool {
        try await base.revokeSession(tokenHash: tokenHash, now: now)
    }
    func sessionLookup(tokenHash: [UInt8]) async throws -> SessionLookup? { try await base.sessionLookup(tokenHash: tokenHash) }
    func markSessionSeen(tokenHash: [UInt8], now: Int64) async throws { try await base.markSessionSeen(tokenHash: tokenHash, now: now) }
    func liveSessions(appID: UUID, userID: String, now: Int64) async throws -> [SessionLookup] {
        try await base.liveSessions(appID: appID, userID: userID, now: now)
    }
    func sessionLookup(sessionID: UUID) async throws -> SessionLookup? { try await base.sessionLookup(sessionID: sessionID) }
    func endSession(
        sessionID: UUID, owner: (appID: UUID, userID: String)?, reason: SessionEndReason, now: Int64
    ) async throws -> SessionLookup? {
        try await base.endSession(sessionID: sessionID, owner: owner, reason: reason, now: now)
    }
    func signOutOtherSessions(appID: UUID, userID: String, keeping tokenHash: [UInt8], now: Int64) async throws -> Int {
        try await base.signOutOtherSessions(appID: appID, userID: userID, keeping: tokenHash, now: now)
    }
    func cutOff(_ target: CutoffTarget, reason: String?, now: Int64) async throws -> CutoffResult {
        try await base.cutOff(target, reason: reason, now: now)
    }
    func cutoff(of target: CutoffTarget) async throws -> ScopeCutoff { try await base.cutoff(of: target) }
    func liveSessionCount(of target: CutoffTarget, now: Int64) async throws -> Int {
        try await base.liveSessionCount(of: target, now: now)
    }
    func secret(named name: String, orInsert candidate: [UInt8]) async throws -> [UInt8] {
        try await base.secret(named: name, orInsert: candidate)
    }
    func purgeExpired(now: Int64, sessionGraceSeconds: Int64) async throws -> PurgedRows {
        try await base.purgeExpired(now: now, sessionGraceSeconds: sessionGraceSeconds)
    }
    func appendAudit(_ entries: [NewAuditEntry]) async throws { try await base.appendAudit(entries) }
    func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] { try await base.auditEntries(query) }
    func purgeAudit(before: Int64) async throws -> Int { try await base.purgeAudit(before: before) }
    func ping() async throws { try await base.ping() }
    func close() async throws { try await base.close() }
}
