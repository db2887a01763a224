import CoreMetrics
import Foundation
import VouchProtocol
import VouchStore

/// The store the server is given, timed: every operation's duration goes into a histogram by
/// operation, and every failure is counted by operation and kind (`StoreFailureKind`). The
/// server wraps whatever store it is handed in one of these, so both backends (and any other)
/// are measured the same way, from the server's side of the call.
///
/// Every `Store` requirement is forwarded explicitly, so that a default implementation added to
/// the protocol later could never hide a backend's own faster version: a method added to `Store`
/// must be added here too. It also counts the sessions that the calls ending sessions ended
/// (`vouch_sessions_ended_total`), and after every call that may have ended one it tells the live
/// channel to read the log of endings (`endingsWritten`): this process's own endings reach its
/// sockets without waiting for any notification.
struct InstrumentedStore: Store {
    let base: any Store
    let metrics: ServerMetrics
    private let timers: [StoreOperation: LatencyHistogram]
    private let endingsWritten: @Sendable () -> Void

    init(base: any Store, metrics: ServerMetrics, endingsWritten: @escaping @Sendable () -> Void = {}) {
        self.base = base
        self.metrics = metrics
        self.timers = metrics.storeOperationTimers()
        self.endingsWritten = endingsWritten
    }

    /// Inlined with its closure into every operation: otherwise each store call is two more async
    /// frames and four more executor hops (docs/PERFORMANCE.md, "The request path").
    @inline(__always)
    private func timed<Value>(_ operation: StoreOperation, _ body: () async throws -> Value) async throws -> Value {
        let start = ContinuousClock.now
        do {
            let result = try await body()
            timers[operation]?.record(ContinuousClock.now - start)
            return result
        } catch {
            timers[operation]?.record(ContinuousClock.now - start)
            metrics.recordStoreFailure(operation, kind: StoreFailureKind(error))
            throw error
        }
    }

    func createApp(_ app: AppRecord) async throws {
        try await timed(.createApp) { try await base.createApp(app) }
    }

    func app(id: UUID) async throws -> AppRecord? {
        try await timed(.app) { try await base.app(id: id) }
    }

    func apps() async throws -> [AppRecord] {
        try await timed(.apps) { try await base.apps() }
    }

    func updateApp(id: UUID, changes: AppChanges) async throws -> AppRecord {
        try await timed(.updateApp) { try await base.updateApp(id: id, changes: changes) }
    }

    func createProvider(_ provider: ProviderRecord) async throws {
        try await timed(.createProvider) { try await base.createProvider(provider) }
    }

    func provider(id: UUID) async throws -> ProviderRecord? {
        try await timed(.provider) { try await base.provider(id: id) }
    }

    func bindProvider(_ providerID: UUID, toApp appID: UUID) async throws {
        try await timed(.bindProvider) { try await base.bindProvider(providerID, toApp: appID) }
    }

    func unbindProvider(_ providerID: UUID, fromApp appID: UUID) async throws {
        try await timed(.unbindProvider) { try await base.unbindProvider(providerID, fromApp: appID) }
    }

    func updateProvider(id: UUID, change: ProviderChange) async throws -> ProviderRecord {
        try await timed(.updateProvider) { try await base.updateProvider(id: id, change: change) }
    }

    func keySetState(providerID: UUID, usesSince: Int64) async throws -> KeySetState? {
        try await timed(.keySetState) { try await base.keySetState(providerID: providerID, usesSince: usesSince) }
    }

    func beginKeySetFetch(providerID: UUID, source: String, now: Int64, unlessBegunAfter: Int64) async throws -> Bool {
        try await timed(.beginKeySetFetch) {
            try await base.beginKeySetFetch(providerID: providerID, source: source, now: now, unlessBegunAfter: unlessBegunAfter)
        }
    }

    func finishKeySetFetch(_ fetch: KeySetFetch) async throws -> KeySetHealthChange {
        try await timed(.finishKeySetFetch) { try await base.finishKeySetFetch(fetch) }
    }

    func addSourceKeyUses(_ uses: [SourceKeyUse]) async throws {
        try await timed(.addSourceKeyUses) { try await base.addSourceKeyUses(uses) }
    }

    func createKey(_ key: KeyRecord) async throws {
        try await timed(.createKey) { try await base.createKey(key) }
    }

    func key(id: UUID) async throws -> KeyRecord? {
        try await timed(.key) { try await base.key(id: id) }
    }

    func keys(ofProvider providerID: UUID) async throws -> [KeyRecord] {
        try await timed(.keys) { try await base.keys(ofProvider: providerID) }
    }

    func setKeyStatus(id: UUID, to status: KeyStatus) async throws -> KeyRecord {
        try await timed(.setKeyStatus) { try await base.setKeyStatus(id: id, to: status) }
    }

    func createRegistrationSecret(_ secret: RegistrationSecretRecord) async throws {
        try await timed(.createRegistrationSecret) { try await base.createRegistrationSecret(secret) }
    }

    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecretRecord? {
        try await timed(.registrationSecret) { try await base.registrationSecret(applicationKey: applicationKey) }
    }

    func registrationSecrets(appID: UUID) async throws -> [RegistrationSecretRecord] {
        try await timed(.registrationSecrets) { try await base.registrationSecrets(appID: appID) }
    }

    func revokeRegistrationSecret(applicationKey: UUID, appID: UUID, at: Int64) async throws -> RegistrationSecretRecord {
        try await timed(.revokeRegistrationSecret) { try await base.revokeRegistrationSecret(applicationKey: applicationKey, appID: appID, at: at) }
    }

    func registrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool {
        try await timed(.registrationNonceSeen) { try await base.registrationNonceSeen(appID: appID, nonce: nonce, now: now) }
    }

    func serverNonceUsed(hash: [UInt8], expiresAt: Int64) async throws -> Bool {
        try await timed(.serverNonceUsed) { try await base.serverNonceUsed(hash: hash, expiresAt: expiresAt) }
    }

    func user(appID: UUID, userID: String) async throws -> UserRecord? {
        try await timed(.user) { try await base.user(appID: appID, userID: userID) }
    }

    func setSuspended(appID: UUID, userID: String, suspended: Bool, now: Int64) async throws -> UserRecord {
        defer { if suspended { endingsWritten() } }
        return try await timed(.setSuspended) {
            try await base.setSuspended(appID: appID, userID: userID, suspended: suspended, now: now)
        }
    }

    func activeSessionCount(appID: UUID, userID: String, now: Int64) async throws -> Int {
        try await timed(.activeSessionCount) { try await base.activeSessionCount(appID: appID, userID: userID, now: now) }
    }

    @discardableResult
    func revokeSessions(appID: UUID, userID: String, now: Int64) async throws -> Int {
        let ended = try await timed(.revokeSessions) { try await base.revokeSessions(appID: appID, userID: userID, now: now) }
        metrics.recordSessionsEnded(.revoked, count: ended)
        if ended > 0 { endingsWritten() }
        return ended
    }

    func signInFacts(_ questions: SignInFactsQuery) async throws -> SignInFacts {
        try await timed(.signInFacts) { try await base.signInFacts(questions) }
    }

    func createSession(_ session: NewSession) async throws -> UserRecord {
        try await timed(.createSession) { try await base.createSession(session) }
    }

    func session(tokenHash: [UInt8]) async throws -> SessionRecord? {
        try await timed(.session) { try await base.session(tokenHash: tokenHash) }
    }

    func sessionLookup(tokenHash: [UInt8]) async throws -> SessionLookup? {
        try await timed(.sessionLookup) { try await base.sessionLookup(tokenHash: tokenHash) }
    }

    func markSessionSeen(tokenHash: [UInt8], now: Int64) async throws {
        try await timed(.markSessionSeen) { try await base.markSessionSeen(tokenHash: tokenHash, now: now) }
    }

    func liveSessions(appID: UUID, userID: String, now: Int64) async throws -> [SessionLookup] {
        try await timed(.liveSessions) { try await base.liveSessions(appID: appID, userID: userID, now: now) }
    }

    func sessionLookup(sessionID: UUID) async throws -> SessionLookup? {
        try await timed(.sessionLookupByID) { try await base.sessionLookup(sessionID: sessionID) }
    }

    func endSession(
        sessionID: UUID, owner: (appID: UUID, userID: String)?, reason: SessionEndReason, now: Int64
    ) async throws -> SessionLookup? {
        let found = try await timed(.endSession) {
            try await base.endSession(sessionID: sessionID, owner: owner, reason: reason, now: now)
        }
        if let found, found.standing(at: now).isLive, let kind = SessionsEndedKind(reason) {
            metrics.recordSessionsEnded(kind, count: 1)
            endingsWritten()
        }
        return found
    }

    func signOutOtherSessions(appID: UUID, userID: String, keeping tokenHash: [UInt8], now: Int64) async throws -> Int {
        let ended = try await timed(.signOutOtherSessions) {
            try await base.signOutOtherSessions(appID: appID, userID: userID, keeping: tokenHash, now: now)
        }
        metrics.recordSessionsEnded(.signedOut, count: ended)
        if ended > 0 { endingsWritten() }
        return ended
    }

    func cutOff(_ target: CutoffTarget, reason: String?, now: Int64) async throws -> CutoffResult {
        let result = try await timed(.cutOff) { try await base.cutOff(target, reason: reason, now: now) }
        metrics.recordSessionsEnded(.cutOff, count: result.sessionsEnded)
        endingsWritten()
        return result
    }

    func cutoff(of target: CutoffTarget) async throws -> ScopeCutoff {
        try await timed(.cutoff) { try await base.cutoff(of: target) }
    }

    func liveSessionCount(of target: CutoffTarget, now: Int64) async throws -> Int {
        try await timed(.liveSessionCountOfTarget) { try await base.liveSessionCount(of: target, now: now) }
    }

    @discardableResult
    func revokeSession(tokenHash: [UInt8], now: Int64) async throws -> Bool {
        let ended = try await timed(.revokeSession) { try await base.revokeSession(tokenHash: tokenHash, now: now) }
        if ended {
            metrics.recordSessionsEnded(.revoked, count: 1)
            endingsWritten()
        }
        return ended
    }

    func secret(named name: String, orInsert candidate: [UInt8]) async throws -> [UInt8] {
        try await timed(.secret) { try await base.secret(named: name, orInsert: candidate) }
    }

    func appendAudit(_ entries: [NewAuditEntry]) async throws {
        try await timed(.appendAudit) { try await base.appendAudit(entries) }
    }

    func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry] {
        try await timed(.auditEntries) { try await base.auditEntries(query) }
    }

    @discardableResult
    func purgeAudit(before: Int64) async throws -> Int {
        try await timed(.purgeAudit) { try await base.purgeAudit(before: before) }
    }

    @discardableResult
    func purgeExpired(now: Int64, sessionGraceSeconds: Int64) async throws -> PurgedRows {
        try await timed(.purgeExpired) { try await base.purgeExpired(now: now, sessionGraceSeconds: sessionGraceSeconds) }
    }

    @discardableResult
    func purgeSessionEndings(before: Int64) async throws -> Int {
        try await timed(.purgeSessionEndings) { try await base.purgeSessionEndings(before: before) }
    }

    func sessionEndings(after position: Int64, limit: Int) async throws -> SessionEndingsPage {
        try await timed(.sessionEndings) { try await base.sessionEndings(after: position, limit: limit) }
    }

    func createLiveTicket(_ ticket: LiveTicket) async throws {
        try await timed(.createLiveTicket) { try await base.createLiveTicket(ticket) }
    }

    func consumeLiveTicket(hash: [UInt8], now: Int64) async throws -> [UInt8]? {
        try await timed(.consumeLiveTicket) { try await base.consumeLiveTicket(hash: hash, now: now) }
    }

    func signingKeys() async throws -> [SigningKeyRecord] {
        try await timed(.signingKeys) { try await base.signingKeys() }
    }

    func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try await timed(.addSigningKey) { try await base.addSigningKey(key) }
    }

    @discardableResult
    func deleteSigningKeys(below sequence: Int64) async throws -> Int {
        try await timed(.deleteSigningKeys) { try await base.deleteSigningKeys(below: sequence) }
    }

    func createServiceCredential(_ credential: ServiceCredentialRecord) async throws {
        try await timed(.createServiceCredential) { try await base.createServiceCredential(credential) }
    }

    func serviceCredential(hash: [UInt8]) async throws -> ServiceCredentialRecord? {
        try await timed(.serviceCredential) { try await base.serviceCredential(hash: hash) }
    }

    func serviceCredentials(appID: UUID) async throws -> [ServiceCredentialRecord] {
        try await timed(.serviceCredentials) { try await base.serviceCredentials(appID: appID) }
    }

    func revokeServiceCredential(id: UUID, appID: UUID, now: Int64) async throws -> ServiceCredentialRecord {
        try await timed(.revokeServiceCredential) { try await base.revokeServiceCredential(id: id, appID: appID, now: now) }
    }

    func createWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws {
        try await timed(.createWebhookEndpoint) { try await base.createWebhookEndpoint(endpoint, limit: limit) }
    }

    func webhookEndpoints(appID: UUID) async throws -> [WebhookEndpointRecord] {
        try await timed(.webhookEndpoints) { try await base.webhookEndpoints(appID: appID) }
    }

    func updateWebhookEndpoint(id: UUID, appID: UUID, change: WebhookEndpointChange, now: Int64) async throws -> WebhookEndpointRecord {
        try await timed(.updateWebhookEndpoint) { try await base.updateWebhookEndpoint(id: id, appID: appID, change: change, now: now) }
    }

    func pauseWebhookEndpoint(id: UUID, appID: UUID, reason: String, now: Int64) async throws -> WebhookEndpointRecord {
        try await timed(.pauseWebhookEndpoint) { try await base.pauseWebhookEndpoint(id: id, appID: appID, reason: reason, now: now) }
    }

    func deleteWebhookEndpoint(id: UUID, appID: UUID) async throws {
        try await timed(.deleteWebhookEndpoint) { try await base.deleteWebhookEndpoint(id: id, appID: appID) }
    }

    func securityEvents(
        appID: UUID, after cursor: SecurityEventCursor, kinds: [SecurityEventKind]?, limit: Int
    ) async throws -> [(cursor: SecurityEventCursor, event: SecurityEventRecord)] {
        try await timed(.securityEvents) { try await base.securityEvents(appID: appID, after: cursor, kinds: kinds, limit: limit) }
    }

    func securityEventCursor(appID: UUID, since: Int64) async throws -> SecurityEventCursor {
        try await timed(.securityEventCursor) { try await base.securityEventCursor(appID: appID, since: since) }
    }

    func recordSessionExpiries(now: Int64, limit: Int) async throws -> Int {
        try await timed(.recordSessionExpiries) { try await base.recordSessionExpiries(now: now, limit: limit) }
    }

    func claimWebhookDeliveries(now: Int64, lease: Int64, limit: Int) async throws -> [ClaimedWebhookDelivery] {
        try await timed(.claimWebhookDeliveries) { try await base.claimWebhookDeliveries(now: now, lease: lease, limit: limit) }
    }

    func finishWebhookAttempt(_ attempt: WebhookAttempt) async throws {
        try await timed(.finishWebhookAttempt) { try await base.finishWebhookAttempt(attempt) }
    }

    func webhookDeliveries(endpointID: UUID, appID: UUID, limit: Int) async throws -> [WebhookDelivery] {
        try await timed(.webhookDeliveries) { try await base.webhookDeliveries(endpointID: endpointID, appID: appID, limit: limit) }
    }

    func replayWebhookDelivery(endpointID: UUID, appID: UUID, eventID: UUID, now: Int64) async throws -> WebhookDelivery {
        try await timed(.replayWebhookDelivery) {
            try await base.replayWebhookDelivery(endpointID: endpointID, appID: appID, eventID: eventID, now: now)
        }
    }

    @discardableResult
    func purgeSecurityEvents(before: Int64) async throws -> Int {
        try await timed(.purgeSecurityEvents) { try await base.purgeSecurityEvents(before: before) }
    }

    func eraseUser(appID: UUID, userID: String, pseudonym: String, now: Int64) async throws -> UserErasure {
        let erasure = try await timed(.eraseUser) {
            try await base.eraseUser(appID: appID, userID: userID, pseudonym: pseudonym, now: now)
        }
        metrics.recordSessionsEnded(.signedOut, count: erasure.sessionsEnded)
        if erasure.sessionsEnded > 0 { endingsWritten() }
        return erasure
    }

    func userData(appID: UUID, userID: String) async throws -> UserDataExport? {
        try await timed(.userData) { try await base.userData(appID: appID, userID: userID) }
    }

    func liveSessionCount(now: Int64) async throws -> Int {
        try await timed(.liveSessionCount) { try await base.liveSessionCount(now: now) }
    }

    func ping() async throws {
        try await timed(.ping) { try await base.ping() }
    }

    func close() async throws {
        try await timed(.close) { try await base.close() }
    }
}
