import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// What a sign-in came to: a session, or a refusal with the rule the token breaks. A value, so that
/// the route records the audit entry and the metric from it rather than from an error's body.
enum SignInOutcome: Sendable {
    case signedIn(SignedInSession)
    /// `serverTime` is the time the token was judged at, which the 422 reports.
    case refused(TokenRejection, serverTime: Int64)
}

/// The client API's use cases (PROTOCOL §3), independent of HTTP: the routes only translate.
struct Authenticator: Sendable {
    /// A session that passed every check of an authenticated request.
    struct AuthenticatedSession: Sendable {
        let session: SessionRecord
        let user: UserRecord
    }

    let store: any Store
    let verifier: TokenVerifier
    let nonces: NonceIssuer
    let clock: @Sendable () -> Int64
    let facts: StoreFacts
    /// Sign-ins per fetched key, for the operator's list of keys seen.
    let sourceKeyUses: SourceKeyUseCounter

    init(
        store: any Store, verifier: TokenVerifier, nonces: NonceIssuer, clock: @escaping @Sendable () -> Int64,
        keySets: ProviderKeySets? = nil, sourceKeyUses: SourceKeyUseCounter = SourceKeyUseCounter()
    ) {
        self.store = store
        self.verifier = verifier
        self.nonces = nonces
        self.clock = clock
        self.sourceKeyUses = sourceKeyUses
        self.facts = StoreFacts(
            store: store, nonces: nonces, parsedKeys: ParsedKeyCache(), keySets: keySets, leewaySeconds: verifier.leewaySeconds)
    }

    /// A fresh nonce; bound to `appID` when given, so that it admits a sign-in to that app only.
    func issueNonce(appID: UUID? = nil) -> NonceResponse {
        let issued = nonces.issue(now: clock(), appID: appID)
        return NonceResponse(nonce: issued.nonce, expiresAt: Timestamp.rfc3339(issued.expiresAt))
    }

    /// `POST /sessions`: plan, facts, verdict, then the session: its nonce consumed and the session
    /// created in one store transaction, so that a nonce admits at most one session however many
    /// requests race for it. That transaction is also where a used nonce and a suspended user are
    /// found (§5.4 #21–#23, the last rules; `StoreFacts.forSignIn`).
    ///
    /// - Returns: the session, or the refusal with the rule the token breaks.
    /// - Throws: `APIError.invalidAppID` for an unknown app (it outranks every verdict), and the
    ///   store's failures.
    func signIn(identityToken: String, appID: UUID, device: DeviceDescription? = nil) async throws -> SignInOutcome {
        let now = clock()
        let plan = verifier.plan(identityToken, appID: appID)
        let gathered = try await facts.forSignIn(plan, now: now)
        guard let app = gathered.app else { throw APIError.invalidAppID }
        let verified: VerifiedToken
        switch verifier.verdict(plan, facts: gathered.facts, now: now) {
        case .verified(let token): verified = token
        case .rejected(let rejection): return .refused(rejection, serverTime: now)
        }

        let nonce: NonceClaim
        switch verified.profile {
        case .layer:
            // A verified Layer token's nonce was found usable, so it was opened.
            guard let use = gathered.nonceUse else {
                return .refused(TokenRejection(.nonceNotFound, claim: verified.profile.nonceClaim), serverTime: now)
            }
            nonce = .serverNonce(use)
        case .sinch:
            nonce = .registrationNonce(
                appID: app.id, nonce: verified.nonce,
                expiresAt: Saturating.add(verified.expiresAt, verifier.leewaySeconds))
        case .idToken:
            // A verified ID token has its digest; its use is recorded with the session.
            guard let digest = verified.replayDigest else {
                return .refused(verified.profile.usedNonceRejection, serverTime: now)
            }
            nonce = .serverNonce(ServerNonceUse(hash: digest, expiresAt: Saturating.add(verified.expiresAt, verifier.leewaySeconds)))
        }

        let (token, sessionKey) = SessionToken.generate(now: now)
        let expiresAt = now + app.sessionTTLSeconds
        let sessionID = PublicSessionID.make(fillRandom: SecureRandom.fill)
        let user: UserRecord
        do {
            user = try await store.createSession(
                NewSession(
                    tokenHash: sessionKey, appID: app.id, userID: verified.userID,
                    profile: verified.identity,
                    createdAt: now, expiresAt: expiresAt, nonce: nonce, keyID: verified.keyID,
                    providerID: verified.providerID, sessionID: sessionID, device: device))
        } catch StoreError.nonceAlreadyUsed {
            return .refused(verified.profile.usedNonceRejection, serverTime: now)
        } catch StoreError.userSuspended {
            return .refused(verified.profile.suspendedUserRejection, serverTime: now)
        }
        if let sourceKeyID = verified.sourceKeyID, let providerID = verified.providerID {
            sourceKeyUses.count(providerID: providerID, keyID: sourceKeyID, at: now)
        }
        return .signedIn(
            SignedInSession(
                sessionToken: token, sessionID: sessionID.lowercased, expiresAt: Timestamp.rfc3339(expiresAt), user: user))
    }

    /// Checks an `Authorization` header; throws the authentication challenge when it does not
    /// name a session that `SessionStanding` finds live, the rule every path that accepts a
    /// session goes by. Moves the session's `last_seen_at` when it is a minute old (a write once
    /// a minute per session at most, never on the other requests).
    func authenticate(authorization: String?) async throws -> AuthenticatedSession {
        guard let token = SessionCredentials.token(fromAuthorization: authorization) else {
            throw challenge(.missingCredentials)
        }
        return try await authenticate(tokenHash: SessionToken.storageKey(token))
    }

    /// The same check for a session known by its token's hash (a live-channel ticket's session).
    func authenticate(tokenHash: [UInt8]) async throws -> AuthenticatedSession {
        guard let lookup = try await store.sessionLookup(tokenHash: tokenHash) else {
            throw challenge(.sessionUnknown)
        }
        let now = clock()
        let session = lookup.session
        // The session's app is known: its challenge nonce admits a sign-in to that app only.
        switch lookup.standing(at: now) {
        case .live: break
        case .userSuspended: throw challenge(.userSuspended, appID: session.appID)
        case .signedOut: throw challenge(.sessionSignedOut, appID: session.appID)
        case .revoked: throw challenge(.sessionRevoked, appID: session.appID)
        case .cutOff(_, let reason): throw challenge(.sessionRevoked, appID: session.appID, detail: reason)
        case .expired: throw challenge(.sessionExpired, appID: session.appID)
        }
        if now - session.lastSeenAt >= SessionRecord.lastSeenResolutionSeconds {
            // Advisory: a failed mark leaves the previous one and does not fail the request.
            try? await store.markSessionSeen(tokenHash: tokenHash, now: now)
        }
        let user =
            lookup.user ?? UserRecord(appID: session.appID, userID: session.userID, profile: IdentityProfile(), suspended: false)
        return AuthenticatedSession(session: session, user: user)
    }

    /// The 401 of PROTOCOL §3, with a fresh nonce so the client can sign in again at once;
    /// `detail` is a cutoff's reason, shown as `data.detail`.
    func challenge(_ reason: ChallengeReason, appID: UUID? = nil, detail: String? = nil) -> APIError {
        let nonce = issueNonce(appID: appID)
        var data: [String: JSONValue] = ["nonce": .string(nonce.nonce), "reason": .string(reason.rawValue)]
        if let detail { data["detail"] = .string(detail) }
        return APIError(
            .authenticationRequired, "Authentication is required: sign in again with the nonce in `data.nonce`.",
            data: data, headers: [.wwwAuthenticate: "Layer nonce=\"\(nonce.nonce)\""])
    }

    /// `DELETE /sessions/<token>`: idempotent, silent about whether the token existed.
    func deauthenticate(token: String) async throws {
        guard token.utf8.count <= RequestLimits.maximumSessionTokenLength else { return }
        try await store.revokeSession(tokenHash: SessionToken.storageKey(token), now: clock())
    }

    /// The validation tool: every problem, never consuming the nonce.
    func validate(identityToken: String, app: AppRecord) async throws -> ValidateTokenResponse {
        let now = clock()
        let plan = verifier.plan(identityToken, appID: app.id)
        let diagnosis = verifier.diagnose(plan, facts: try await facts.forValidation(plan, now: now), now: now)
        return ValidateTokenResponse(
            valid: diagnosis.isValid, reasons: diagnosis.rejections.map(ValidateTokenResponse.Finding.init),
            header: diagnosis.header, claims: diagnosis.claims, profile: diagnosis.profile?.rawValue)
    }
}

extension UserRecord {
    /// The `<identity>` object of PROTOCOL §3.
    var identity: Identity {
        Identity(
            userID: userID, displayName: profile.displayName, firstName: profile.firstName,
            lastName: profile.lastName, avatarURL: profile.avatarURL)
    }
}
