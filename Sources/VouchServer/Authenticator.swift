import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// The client API's use cases (PROTOCOL §3), independent of HTTP: the routes only translate.
public struct Authenticator: Sendable {
    /// A session that passed every check of an authenticated request.
    struct AuthenticatedSession: Sendable {
        let session: SessionRecord
        let user: UserRecord
    }

    let store: any Store
    let verifier: TokenVerifier
    let nonces: NonceIssuer
    let clock: @Sendable () -> Int64
    let parsedKeys = ParsedKeyCache()

    /// The verifier's view of the world at `now` (a retired registration secret verifies nothing).
    func context(appID: UUID, now: Int64, purpose: StoreVerificationContext.Purpose) -> StoreVerificationContext {
        StoreVerificationContext(store: store, nonces: nonces, parsedKeys: parsedKeys, appID: appID, now: now, purpose: purpose)
    }

    /// A fresh nonce; bound to `appID` when given, so that it admits a sign-in to that app only.
    func issueNonce(appID: UUID? = nil) -> NonceResponse {
        let issued = nonces.issue(now: clock(), appID: appID)
        return NonceResponse(nonce: issued.nonce, expiresAt: Timestamp.rfc3339(issued.expiresAt))
    }

    /// `POST /sessions`: verifies the token, then consumes its nonce and creates the session in
    /// one store transaction, so that a nonce admits at most one session however many requests
    /// race for it. That transaction is also where a used nonce and a suspended user are found
    /// (§5.4 #21–#23, the last rules): the verification does not read them first
    /// (`StoreVerificationContext.Purpose.signIn`).
    ///
    /// The app is read with the verification's other look-ups (one store operation for all of
    /// them), so its absence is known only after the verdict; it still outranks every verdict.
    func signIn(identityToken: String, appID: UUID) async throws -> SignedInSession {
        let now = clock()
        let context = context(appID: appID, now: now, purpose: .signIn)
        let verdict = try await verifier.verdict(identityToken, appID: appID, context: context, now: now)
        guard let app = try await context.app() else { throw APIError.invalidAppID }
        let verified: VerifiedToken
        switch verdict {
        case .verified(let token): verified = token
        case .rejected(let rejection): throw APIError.rejectedToken(rejection, serverTime: now)
        }

        let nonceClaim: NonceClaim
        switch verified.profile {
        case .layer:
            // The verification opened the nonce and found it usable for this app; what it learned
            // is carried in the token, so it is not opened again.
            guard let use = verified.serverNonceUse else {
                throw APIError.rejectedToken(TokenRejection(.nonceNotFound, claim: "nce"), serverTime: now)
            }
            nonceClaim = .serverNonce(hash: use.hash, expiresAt: use.expiresAt)
        case .sinch:
            nonceClaim = .registrationNonce(appID: app.id, nonce: verified.nonce,
                                            expiresAt: Saturating.add(verified.expiresAt, verifier.leewaySeconds))
        }

        let (token, sessionKey) = SessionToken.generate(now: now)
        let expiresAt = now + app.sessionTTLSeconds
        let user: UserRecord
        do {
            user = try await store.createSession(NewSession(
                tokenHash: sessionKey, appID: app.id, userID: verified.userID,
                profile: verified.identity,
                createdAt: now, expiresAt: expiresAt, nonce: nonceClaim, keyID: verified.keyID))
        } catch StoreError.nonceAlreadyUsed {
            let rejection = verified.profile == .layer
                ? TokenRejection(.nonceNotFound, claim: "nce") : TokenRejection(.nonceReplayed, claim: "nonce")
            throw APIError.rejectedToken(rejection, serverTime: now)
        } catch StoreError.userSuspended {
            // The same shape as the validation tool's finding: the claim that names the user.
            let claim = verified.profile == .layer ? "prn" : "sub"
            throw APIError.rejectedToken(TokenRejection(.userSuspended, claim: claim), serverTime: now)
        }
        return SignedInSession(sessionToken: token, expiresAt: Timestamp.rfc3339(expiresAt), user: user)
    }

    /// Checks an `Authorization` header; throws the authentication challenge when it does not
    /// name a live session of a user in good standing.
    func authenticate(authorization: String?) async throws -> AuthenticatedSession {
        guard let token = SessionCredentials.token(fromAuthorization: authorization) else {
            throw challenge(.missingCredentials)
        }
        guard let (session, stored) = try await store.sessionAndUser(tokenHash: SessionToken.storageKey(token)) else {
            throw challenge(.sessionUnknown)
        }
        let user = stored ?? UserRecord(appID: session.appID, userID: session.userID, profile: IdentityProfile(), suspended: false)
        // The session's app is known: its challenge nonce admits a sign-in to that app only.
        if user.suspended { throw challenge(.userSuspended, appID: session.appID) }
        if session.endedAt != nil { throw challenge(.sessionRevoked, appID: session.appID) }
        if session.expiresAt <= clock() { throw challenge(.sessionExpired, appID: session.appID) }
        return AuthenticatedSession(session: session, user: user)
    }

    /// The 401 of PROTOCOL §3, with a fresh nonce so the client can sign in again at once.
    func challenge(_ reason: ChallengeReason, appID: UUID? = nil) -> APIError {
        let nonce = issueNonce(appID: appID)
        return APIError(
            .authenticationRequired, "Authentication is required: sign in again with the nonce in `data.nonce`.",
            data: ["nonce": .string(nonce.nonce), "reason": .string(reason.rawValue)],
            headers: [.wwwAuthenticate: "Layer nonce=\"\(nonce.nonce)\""])
    }

    /// `DELETE /sessions/<token>`: idempotent, silent about whether the token existed.
    func deauthenticate(token: String) async throws {
        guard token.utf8.count <= RequestLimits.maximumSessionTokenLength else { return }
        try await store.revokeSession(tokenHash: SessionToken.storageKey(token), now: clock())
    }

    /// The validation tool: every problem, never consuming the nonce.
    func validate(identityToken: String, app: AppRecord) async throws -> ValidateTokenResponse {
        let now = clock()
        let diagnosis = try await verifier.diagnose(
            identityToken, appID: app.id, context: context(appID: app.id, now: now, purpose: .validation), now: now)
        return ValidateTokenResponse(
            valid: diagnosis.isValid, reasons: diagnosis.rejections.map(ValidateTokenResponse.Finding.init),
            header: diagnosis.header, claims: diagnosis.claims, profile: diagnosis.profile?.rawValue)
    }
}

extension UserRecord {
    /// The `<identity>` object of PROTOCOL §3.
    var identity: Identity {
        Identity(userID: userID, displayName: profile.displayName, firstName: profile.firstName,
                 lastName: profile.lastName, avatarURL: profile.avatarURL)
    }
}
