/// The `operation` label of the store metrics: one case per `Store` requirement, so the label's
/// values are a fixed set and each has its timer made once (`InstrumentedStore`).
enum StoreOperation: String, CaseIterable, Sendable {
    case createApp, app, apps, updateApp, createProvider, provider, bindProvider, unbindProvider, createKey,
        key, keys, setKeyStatus, createRegistrationSecret, registrationSecret, registrationSecrets,
        revokeRegistrationSecret, registrationNonceSeen, serverNonceUsed, user, setSuspended,
        activeSessionCount, revokeSessions, signInFacts, createSession, session, sessionLookup,
        revokeSession, markSessionSeen, liveSessions, sessionLookupByID, endSession, signOutOtherSessions,
        cutOff, cutoff, liveSessionCountOfTarget, secret, appendAudit, auditEntries, purgeAudit, purgeExpired, liveSessionCount, ping,
        close, purgeSessionEndings, sessionEndings, createLiveTicket, consumeLiveTicket, signingKeys, addSigningKey,
        deleteSigningKeys, createServiceCredential, serviceCredential, serviceCredentials, revokeServiceCredential,
        createWebhookEndpoint, webhookEndpoints, updateWebhookEndpoint, pauseWebhookEndpoint,
        deleteWebhookEndpoint, securityEvents, claimWebhookDeliveries, finishWebhookAttempt, webhookDeliveries,
        replayWebhookDelivery, purgeSecurityEvents, eraseUser, userData,
        securityEventCursor, recordSessionExpiries, updateProvider, keySetState, beginKeySetFetch, finishKeySetFetch,
        addSourceKeyUses
}
