import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// The facts a token's plan names, read from the store in one `Store.signInFacts`: step two of a
/// sign-in, between `TokenVerifier.plan` and `TokenVerifier.verdict`.
///
/// The server nonce is opened here, once (an HMAC, no I/O): a forged, expired or other app's nonce
/// is known without the store, and a genuine one's hash is what the session records.
struct StoreFacts: Sendable {
    let store: any Store
    let nonces: NonceIssuer
    let parsedKeys: ParsedKeyCache
    /// Providers' fetched keys; `nil` where no key source is used (a test of uploaded keys).
    let keySets: ProviderKeySets?
    let leewaySeconds: Int64

    /// A sign-in's facts, and what it needs besides the verdict.
    struct SignIn: Sendable {
        /// The app the request names, `nil` when there is none.
        let app: AppRecord?
        let facts: VerificationFacts
        /// The use the session records, for a genuine server nonce of this app.
        let nonceUse: ServerNonceUse?
    }

    /// For `POST /sessions`: the app's record is read with the rest. The nonce's use and the user's
    /// suspension (#21–#23) are not: the session's transaction records the nonce's use and reads
    /// the user's row anyway, and refuses with the same rejections (`TokenProfile.usedNonceRejection`,
    /// `suspendedUserRejection`). They are the last rules, so a token reaches that transaction only
    /// when every other rule held, and the first broken rule is still the one reported.
    func forSignIn(_ plan: TokenPlan, now: Int64) async throws -> SignIn {
        // A settled token's verdict needs nothing; only the app outranks it.
        guard plan.settled == nil else {
            return SignIn(
                app: try await store.signInFacts(SignInFactsQuery(appID: plan.appID, now: now, includesApp: true)).app,
                facts: VerificationFacts(), nonceUse: nil)
        }
        let opened = plan.serverNonce.flatMap { nonces.open($0, now: now) }
        var query = baseQuery(plan, now: now)
        query.includesApp = true
        // An ID token's suspension (#23) ranks before its lifetime (#24), which the verdict judges:
        // it is read here rather than left to the session's transaction.
        if plan.profile == .idToken { query.userID = plan.userID }
        let stored = try await store.signInFacts(query)
        var facts = try await verificationFacts(stored, plan: plan, now: now)
        facts.serverNonce = standing(of: plan.serverNonce, opened: opened, appID: plan.appID, used: nil)
        facts.userSuspended = stored.userSuspended
        return SignIn(app: stored.app, facts: facts, nonceUse: facts.serverNonce == .usable ? opened?.use : nil)
    }

    /// For the validation tool, which writes nothing: every fact is read, the nonce's use and the
    /// user's suspension included.
    func forValidation(_ plan: TokenPlan, now: Int64) async throws -> VerificationFacts {
        let opened = plan.serverNonce.flatMap { nonces.open($0, now: now) }
        var query = baseQuery(plan, now: now)
        if let opened, opened.admits(appID: plan.appID) { query.serverNonce = opened.use }
        if let use = idTokenUse(plan) { query.serverNonce = use }
        query.registrationNonce = plan.registrationNonce
        query.userID = plan.userID
        let stored = try await store.signInFacts(query)
        var facts = try await verificationFacts(stored, plan: plan, now: now)
        if plan.replayDigest != nil { facts.idTokenUsed = stored.serverNonceUsed }
        facts.serverNonce = standing(of: plan.serverNonce, opened: opened, appID: plan.appID, used: stored.serverNonceUsed)
        facts.registrationNonceSeen = stored.registrationNonceSeen
        facts.userSuspended = stored.userSuspended
        return facts
    }

    /// An ID token's single use as the session's transaction records it: its digest, remembered
    /// until the token expires (with the leeway the verdict grants it).
    func idTokenUse(_ plan: TokenPlan) -> ServerNonceUse? {
        guard let digest = plan.replayDigest, let expiresAt = plan.expiresAt else { return nil }
        return ServerNonceUse(hash: digest, expiresAt: Saturating.add(expiresAt, leewaySeconds))
    }

    /// The catalogue's questions, which every verification asks.
    private func baseQuery(_ plan: TokenPlan, now: Int64) -> SignInFactsQuery {
        var query = SignInFactsQuery(
            appID: plan.appID, providerID: plan.providerID, now: now,
            keyID: plan.keyID, applicationKey: plan.applicationKey)
        query.sourceProvider = plan.sourceProvider
        return query
    }

    private func verificationFacts(_ stored: SignInFacts, plan: TokenPlan, now: Int64) async throws -> VerificationFacts {
        var facts = VerificationFacts(providerBinding: stored.providerBinding)
        if let key = stored.key {
            // Keys are checked when uploaded; a row that no longer parses is damage, not a verdict.
            guard let publicKey = try? parsedKeys.key(id: key.id, pem: key.publicKeyPEM) else {
                throw StoreError.unavailable("stored public key \(key.id.lowercased) does not parse")
            }
            facts.layerKey = LayerVerificationKey(id: key.id, providerID: key.providerID, status: key.status, publicKey: publicKey)
        }
        if let selected = stored.sourceProvider {
            let provider = selected.provider
            let source = provider.keySource
            facts.sourceProvider = KeySourceProvider(
                providerID: provider.id, hasKeySource: source != nil, issuer: source?.issuer, clientID: source?.clientID,
                federated: source?.federated == true, algorithm: source?.algorithm ?? .rs256, boundToApp: selected.boundToApp)
            // The source is asked only when nothing else already decides the key: an uploaded key
            // the `kid` also names, or an ID token its provider would refuse anyway.
            let decided = stored.key != nil || (plan.profile == .idToken && source?.federated != true)
            if let kid = plan.sourceKeyID, let keySets, source != nil, !decided {
                facts.sourceKey = await keySets.key(kid, of: provider)
            }
        }
        // A revoked secret is as good as none: its tokens answer `eit_key_not_found`.
        if let secret = stored.registrationSecret, secret.isValid(at: now) {
            facts.registrationSecret = RegistrationSecret(applicationKey: secret.applicationKey, appID: secret.appID, secret: secret.secret)
        }
        return facts
    }

    /// #21 for the nonce the plan names: forged or expired is unknown, another app's is bound
    /// elsewhere, and a genuine one is as `used` says (usable when its use is left to the session).
    private func standing(of nonce: String?, opened: NonceIssuer.Opened?, appID: UUID, used: Bool?) -> NonceStanding? {
        guard nonce != nil else { return nil }
        guard let opened else { return .unknown }
        guard opened.admits(appID: appID) else { return .boundToAnotherApp }
        return used == true ? .used : .usable
    }
}
