import Foundation
import VouchProtocol

/// What `deauthenticate()` could confirm. Local state is wiped in every case.
public enum DeauthenticationResult: Sendable, Equatable {
    /// The server ended the session.
    case confirmed
    /// The session is gone locally, but the server could not be told (offline): it ends there when
    /// it expires or is revoked.
    case unconfirmed(VouchClientError)
    /// Nobody was signed in; local state was wiped anyway.
    case wasNotAuthenticated
}

extension VouchClient {
    // MARK: LayerKit flow

    /// A fresh nonce bound to this app, for the app's backend to put into an identity token; `nil`
    /// when a user is already authenticated (as LayerKit's `requestAuthenticationNonce`).
    public func requestAuthenticationNonce() async throws(VouchClientError) -> String? {
        try loadIfNeeded()
        guard session == nil else { return nil }
        return try await requestNonce()
    }

    /// Exchanges an identity token from the app's backend for a session.
    ///
    /// - Throws: `alreadyAuthenticated` when another sign-in is in place (deauthenticate first),
    ///   `invalidIdentityToken` with the server's reason, `superseded` when `deauthenticate()`
    ///   ran meanwhile.
    @discardableResult
    public func authenticate(identityToken: String) async throws(VouchClientError) -> Identity {
        try loadIfNeeded()
        if let session { throw .alreadyAuthenticated(userID: session.user.userID) }
        let expected = generation
        let response = try await openSession(identityToken)
        return try accept(response, profile: .identityToken, expected: expected, userID: nil)
    }

    /// Exchanges an ID token from a federated OpenID provider (Firebase Authentication, Auth0, a
    /// Clerk JWT template, the app's own OpenID provider) for a session, with no Vouch nonce
    /// (PROTOCOL §8.18): the provider must be set up as federated in Vouch, with the token's `iss`
    /// as its issuer and its `aud` as its client id. The user is the token's `sub`.
    ///
    /// An ID token signs in once: ask the provider for a fresh one for each sign-in (Firebase:
    /// `getIDToken(forcingRefresh: true)`); a token used before is refused with
    /// `eit_token_replayed`. The same token can also be the `IdentityTokenProvider`'s answer, which
    /// then ignores the nonce: challenges are answered with a fresh ID token the same way.
    ///
    /// - Throws: as `authenticate(identityToken:)`.
    @discardableResult
    public func authenticate(federatedIDToken: String) async throws(VouchClientError) -> Identity {
        try await authenticate(identityToken: federatedIDToken)
    }

    /// Signs the user out: ends the session on the server (`DELETE /sessions/<token>`) and always
    /// wipes the persisted session and the user's data container, before any network call, so
    /// that nothing of the user survives even when the device is offline.
    ///
    /// Any sign-in or challenge answer in flight is cancelled and its result discarded.
    @discardableResult
    public func deauthenticate() async throws(VouchClientError) -> DeauthenticationResult {
        try? loadIfNeeded()
        let ended = session
        // A user being signed in again after a challenge is signed out too.
        let signedOutUser = session?.user.userID ?? refresh?.reauthenticating?.userID
        generation &+= 1
        session = nil
        accessTokens.removeAll()
        refresh?.task.cancel()
        refresh = nil
        retainedContainer = nil
        var wipeFailure: CredentialStoreError?
        do {
            try store.remove()
            storedBytes = nil
        } catch {
            wipeFailure = error
        }
        do { try containers.removeAll() } catch { wipeFailure = wipeFailure ?? error }
        if wipeFailure == nil { loaded = true }
        publishState()
        if let signedOutUser { hub.publish(.didDeauthenticate(userID: signedOutUser, reason: .requested)) }
        if let wipeFailure { throw .credentialStoreUnavailable(message: wipeFailure.description) }
        guard let ended else { return .wasNotAuthenticated }
        let request = HTTPTransport.jsonRequest(url("sessions/\(ended.sessionToken)"), method: "DELETE", body: Optional<String>.none)
        do {
            let answer = try await transport.send(request)
            return answer.status == 204 ? .confirmed : .unconfirmed(HTTPTransport.failure(answer))
        } catch {
            return .unconfirmed(error)
        }
    }

    // MARK: One-call sign-in

    /// Makes `userID` the signed-in user, as the documents' multi-user sample does by hand:
    /// resumes when that user is already signed in; otherwise deauthenticates whoever is, waits
    /// for it, and signs `userID` in through the identity-token provider.
    @discardableResult
    public func connect(userID: String) async throws(VouchClientError) -> Identity {
        guard configuration.identityTokenProvider != nil else {
            throw .providerNotConfigured(message: "connect(userID:) needs Configuration.identityTokenProvider")
        }
        return try await signIn(userID: userID, profile: .identityToken)
    }

    /// Sinch's `start`: resumes the stored session when it is `userID`'s; otherwise asks the
    /// registration-credentials provider for a token and opens a session with it. Called again
    /// on a later launch, it asks the provider only if the session is gone.
    ///
    /// - Throws: `alreadyAuthenticated` when another user is signed in: as LayerKit's
    ///   `authenticate`, `start` never switches users (deauthenticate first, or use
    ///   `connect(userID:)`, the call that switches).
    @discardableResult
    public func start(userID: String) async throws(VouchClientError) -> Identity {
        guard configuration.registrationCredentialsProvider != nil else {
            throw .providerNotConfigured(message: "start(userID:) needs Configuration.registrationCredentialsProvider")
        }
        try loadIfNeeded()
        if let session, session.user.userID != userID { throw .alreadyAuthenticated(userID: session.user.userID) }
        return try await signIn(userID: userID, profile: .registration)
    }

    /// One sign-in for `userID` however many callers ask at once (a launch-time herd, or a call
    /// racing an automatic challenge answer): they all wait for the same flight. A few passes at
    /// most, because each await may find the state changed by another caller.
    private func signIn(userID: String, profile: SignInProfile) async throws(VouchClientError) -> Identity {
        try loadIfNeeded()
        for _ in 0..<3 {
            if let session, session.user.userID == userID { return session.user }
            if let refresh, refresh.userID == userID {
                try await wait(for: refresh)
                continue
            }
            if let refresh {
                // Another user's sign-in or challenge answer: this call wins over it.
                refresh.task.cancel()
                self.refresh = nil
                generation &+= 1
                publishState()
                if let overtaken = refresh.reauthenticating {
                    hub.publish(.didDeauthenticate(userID: overtaken.userID, reason: .switchedUser))
                }
            }
            if session != nil {
                try await deauthenticate()
                continue
            }
            if Task.isCancelled { throw .cancelled }
            try await wait(for: startFlight(userID: userID, profile: profile, challengeNonce: nil, origin: generation, reauthenticating: nil))
        }
        guard let session, session.user.userID == userID else { throw .superseded }
        return session.user
    }

    /// Starts the one sign-in in flight for `userID`, tagged with the current generation: its
    /// result is dropped if the generation moves on before it lands. It is cancelled when every
    /// caller waiting for it has been cancelled.
    ///
    /// - Parameters:
    ///   - userID: the user to sign in.
    ///   - profile: how their session was opened, and so how to open the next.
    ///   - challengeNonce: the challenge's nonce, for the first attempt.
    ///   - origin: the generation of the challenged session (for a first sign-in, the current one).
    ///   - reauthenticating: the challenged session's user; nil for a first sign-in.
    ///   - answerAfter: the wait a live challenge asks for before the backend is asked.
    func startFlight(
        userID: String, profile: SignInProfile, challengeNonce: String?, origin: UInt64, reauthenticating: Identity?,
        answerAfter: Duration = .zero
    ) -> Refresh {
        let expected = generation
        let id = UUID()
        let outcome = FlightOutcome()
        // A challenge's answer may go over the live channel that follows the challenged session.
        let answering = reauthenticating == nil ? nil : origin
        let task = Task {
            do throws(VouchClientError) {
                try await self.runFlight(
                    id: id, userID: userID, profile: profile, nonce: challengeNonce, expected: expected,
                    answering: answering, answerAfter: answerAfter)
                outcome.finish(.success(()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        outcome.onAbandoned { task.cancel() }
        let flight = Refresh(id: id, origin: origin, userID: userID, reauthenticating: reauthenticating, task: task, outcome: outcome)
        refresh = flight
        publishState()
        return flight
    }

    /// The flight's attempts; at its end the slot is freed and, when it was answering a challenge
    /// and failed, the user is signed out (the app hears `didDeauthenticate`).
    private func runFlight(
        id: UUID, userID: String, profile: SignInProfile, nonce: String?, expected: UInt64, answering: UInt64?, answerAfter: Duration
    ) async throws(VouchClientError) {
        do {
            if answerAfter > .zero { try? await Task.sleep(for: answerAfter) }
            try await signInAttempts(userID: userID, profile: profile, challengeNonce: nonce, expected: expected, answering: answering)
            endFlight(id, failed: false)
        } catch {
            endFlight(id, failed: true)
            throw error
        }
    }

    private func endFlight(_ id: UUID, failed: Bool) {
        guard let flight = refresh, flight.id == id else { return }
        refresh = nil
        publishState()
        if failed, session == nil, let user = flight.reauthenticating {
            hub.publish(.didDeauthenticate(userID: user.userID, reason: .challengeUnanswered))
        }
    }

    // MARK: Shared steps

    /// Up to `retryPolicy.maximumAttempts` sign-ins for `userID`, with backoff; stops at once for
    /// errors a retry cannot fix, and as soon as the generation moves on. The answer to a challenge
    /// (`answering`: the challenged session's generation) goes over the live channel when its
    /// socket follows that session and holds the challenge, over `POST /sessions` otherwise.
    func signInAttempts(
        userID: String, profile: SignInProfile, challengeNonce: String?, expected: UInt64, answering: UInt64? = nil
    ) async throws(VouchClientError) {
        let policy = configuration.retryPolicy
        var nonce = challengeNonce
        var lastError = VouchClientError.superseded
        for attempt in 0..<policy.maximumAttempts {
            if attempt > 0 {
                let retryAfter = lastError.retryAfterSeconds
                try? await Task.sleep(for: .seconds(policy.delay(beforeAttempt: attempt, retryAfterSeconds: retryAfter)))
                nonce = nil
            }
            guard generation == expected, !Task.isCancelled else { throw .superseded }
            do {
                let token: String
                switch profile {
                case .identityToken:
                    guard let provider = configuration.identityTokenProvider else {
                        throw VouchClientError.providerNotConfigured(message: "no identity-token provider")
                    }
                    let usedNonce: String
                    if let nonce { usedNonce = nonce } else { usedNonce = try await requestNonce() }
                    guard generation == expected, !Task.isCancelled else { throw VouchClientError.superseded }
                    token = try await callProvider { try await provider(userID, usedNonce) }
                case .registration:
                    guard let provider = configuration.registrationCredentialsProvider else {
                        throw VouchClientError.providerNotConfigured(message: "no registration-credentials provider")
                    }
                    token = try await callProvider { try await provider(userID) }
                }
                guard generation == expected, !Task.isCancelled else { throw VouchClientError.superseded }
                let (response, overLiveChannel) = try await openSession(token, answering: answering)
                let user = try accept(response, profile: profile, expected: expected, userID: userID)
                if overLiveChannel { hub.publish(.liveChannelReauthenticated(user)) }
                return
            } catch let error as VouchClientError {
                lastError = error
                guard Self.isWorthRetrying(error) else { throw error }
            } catch {
                throw .superseded
            }
        }
        throw lastError
    }

    /// Installs a fresh session unless the world moved on while it was being opened; a discarded
    /// session is ended on the server so it cannot be used by anyone.
    private func accept(
        _ response: SessionResponse, profile: SignInProfile, expected: UInt64,
        userID: String?
    ) throws(VouchClientError) -> Identity {
        if let current = session {
            endOnServer(response.sessionToken)
            throw .alreadyAuthenticated(userID: current.user.userID)
        }
        guard generation == expected, !Task.isCancelled else {
            endOnServer(response.sessionToken)
            throw .superseded
        }
        if let userID, response.user.userID != userID {
            endOnServer(response.sessionToken)
            throw .invalidResponse(message: "the provider's token signed in \"\(response.user.userID)\", not \"\(userID)\"")
        }
        return try install(response, profile: profile)
    }

    /// Errors a later attempt may not meet: the network, an overloaded server, a provider hiccup,
    /// a nonce that was used or expired meanwhile, an ID token already used. Never a refused signature, key, provider,
    /// binding, suspension, malformed token or a clock that is off.
    static func isWorthRetrying(_ error: VouchClientError) -> Bool {
        switch error.kind {
        case .network, .serverUnavailable, .rateLimited, .tokenProviderFailed, .tokenProviderTimedOut:
            true
        case .invalidIdentityToken:
            // A used nonce, or an ID token the provider handed out twice: a new one may pass.
            [.nonceNotFound, .nonceReplayed, .tokenReplayed].contains(error.tokenRejection?.knownReason)
        default:
            false
        }
    }

    func requestNonce() async throws(VouchClientError) -> String {
        let request = HTTPTransport.jsonRequest(url("nonces"), method: "POST", body: CreateNonceRequest(appID: appID))
        let answer = try await transport.send(request)
        guard answer.status == 201 else { throw HTTPTransport.failure(answer) }
        guard let nonce = try? JSONDecoder().decode(NonceResponse.self, from: answer.body) else {
            throw .invalidResponse(message: "POST /nonces answered 201 without a nonce")
        }
        return nonce.nonce
    }

    func openSession(_ token: String) async throws(VouchClientError) -> SessionResponse {
        let body = CreateSessionRequest(identityToken: token, appID: appID, device: device)
        let answer = try await transport.send(HTTPTransport.jsonRequest(url("sessions"), method: "POST", body: body))
        guard answer.status == 201 else { throw HTTPTransport.failure(answer) }
        guard let response = try? JSONDecoder().decode(SessionResponse.self, from: answer.body) else {
            throw .invalidResponse(message: "POST /sessions answered 201 without a session")
        }
        return response
    }

    /// The app's provider, with the configured timeout; whatever it throws becomes a typed error.
    func callProvider(_ operation: @escaping @Sendable () async throws -> String) async throws(VouchClientError) -> String {
        let seconds = configuration.providerTimeoutSeconds
        do {
            return try await withDeadline(seconds: seconds, operation)
        } catch is DeadlineExceeded {
            throw .tokenProviderTimedOut(seconds: seconds)
        } catch is CancellationError {
            throw .superseded
        } catch {
            throw .tokenProviderFailed(error)
        }
    }
}
