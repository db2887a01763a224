import Foundation
import VouchProtocol
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension VouchClient {
    // MARK: Authenticated requests

    /// Sends the app's own request with the session attached (`Authorization: Layer
    /// session-token="…"`), to Vouch or to the app's realtime service. A 401 challenge in the
    /// answer goes through the client's challenge logic: the client is deauthenticated at once,
    /// the challenge event is delivered, and with a token provider the request is retried once
    /// with the new session. Any other answer is returned as it came.
    ///
    /// The session goes only to the Vouch server's origin and `Configuration.sessionOrigins`, over
    /// HTTPS (or to this device); anywhere else is `sessionNotAllowed`, before anything is sent.
    /// A request that carries its own `Authorization` is sent as it is, its answer returned as it
    /// came: the client never replaces a header the app set.
    ///
    /// Each exchange is bounded by `requestTimeoutSeconds`. On Linux, cancelling the calling task
    /// does not abort a transfer already under way (FoundationNetworking cannot do it safely).
    public func data(for request: URLRequest) async throws(VouchClientError) -> (Data, HTTPURLResponse) {
        if request.value(forHTTPHeaderField: "Authorization") != nil {
            let answer = try await transport.send(request)
            return (answer.body, answer.response)
        }
        guard let url = request.url, let origin = SessionOrigin(url), origin.allowsSession,
            origin == SessionOrigin(serverURL) || configuration.sessionOrigins.contains(where: { SessionOrigin($0) == origin })
        else {
            throw .sessionNotAllowed(origin: request.url.flatMap(SessionOrigin.init)?.description ?? request.url?.absoluteString ?? "no URL")
        }
        let answer = try await perform(request)
        return (answer.body, answer.response)
    }

    /// `GET /users/me`: the signed-in user and their session as the server sees them.
    public func currentUserFromServer() async throws(VouchClientError) -> CurrentUser {
        let answer = try await perform(HTTPTransport.jsonRequest(url("users/me"), method: "GET", body: Optional<String>.none))
        guard answer.status == 200 else { throw HTTPTransport.failure(answer) }
        guard let response = try? JSONDecoder().decode(CurrentUserResponse.self, from: answer.body), let me = CurrentUser(response) else {
            throw .invalidResponse(message: "GET /users/me answered 200 without a user and their session's times")
        }
        return me
    }

    func perform(_ request: URLRequest) async throws(VouchClientError) -> HTTPAnswer {
        try loadIfNeeded()
        var retried = false
        // The user this request is made for. A retry never goes out with another user's session,
        // whatever switch happened while it waited (Stream #3084).
        var owner = session?.user.userID ?? refresh?.userID
        while true {
            guard let current = session else {
                if let refresh, !retried {
                    try await wait(for: refresh)
                    retried = true
                    continue
                }
                throw retried ? .superseded : .notAuthenticated
            }
            if let owner, current.user.userID != owner { throw .superseded }
            owner = current.user.userID
            let sentGeneration = generation
            var attempt = request
            attempt.setValue("Layer session-token=\"\(current.sessionToken)\"", forHTTPHeaderField: "Authorization")
            let answer = try await transport.send(attempt)
            guard let challenge = answer.challenge else { return answer }
            try await handleChallenge(challenge, sentWith: sentGeneration, mayRefresh: !retried)
            retried = true
        }
    }

    /// Handles one 401. Returns when the request may be retried with the (new) current session;
    /// throws when it may not.
    private func handleChallenge(_ challenge: ChallengeDetails, sentWith sentGeneration: UInt64, mayRefresh: Bool) async throws(VouchClientError) {
        switch try takeChallenge(challenge, sentWith: sentGeneration, mayRefresh: mayRefresh) {
        case .retry: return
        case .answering(let flight): try await answer(challenge, by: flight)
        case .waiting(let flight): try await wait(for: flight)
        }
    }

    /// What became of a challenged session, for whoever found out (a 401, a live frame).
    enum ChallengeTaken {
        /// Another session is current already: retry with it.
        case retry
        /// This flight answers the challenge: its failure is the challenge's.
        case answering(Refresh)
        /// A sign-in for a later session is in flight: its outcome is the caller's.
        case waiting(Refresh)
    }

    /// The one place a challenge ends a session, whether a 401 or the live channel brought it
    /// (`sentGeneration`: the generation of the session the request was sent with, or the socket
    /// follows): the session is over at once, the challenge event goes out, and either the one
    /// flight that answers this ending is joined or started, or the user is signed out. Without an
    /// `await`, so that nothing can come between finding out and starting the flight.
    ///
    /// - Parameters:
    ///   - challenge: the challenge; an empty nonce (a live suspension) announces no challenge event.
    ///   - sentGeneration: the generation of the challenged session.
    ///   - mayRefresh: whether this finding may start a sign-in.
    ///   - answerAfter: how long the flight waits before asking the app's backend.
    /// - Throws: the error of a challenge the client does not answer.
    func takeChallenge(
        _ challenge: ChallengeDetails, sentWith sentGeneration: UInt64, mayRefresh: Bool, answerAfter: Duration = .zero
    ) throws(VouchClientError) -> ChallengeTaken {
        if let refresh, refresh.origin == sentGeneration { return .answering(refresh) }
        guard sentGeneration == generation, let challenged = session else {
            // The session changed after this request was sent: the answer is about an old one.
            if session != nil { return .retry }
            if let refresh { return .waiting(refresh) }
            throw Self.unanswerable(challenge, userID: nil)
        }
        // The current session is over: deauthenticated now, whatever happens next.
        let definitive = challenge.reason == .sessionRevoked || challenge.reason == .userSuspended || challenge.reason == .sessionSignedOut
        session = nil
        accessTokens.removeAll()
        generation &+= 1
        // Data goes only while no other client over this storage has signed someone in since.
        let storeIsFree = unpersist()
        if definitive {
            retainedContainer = nil
            if storeIsFree { try? containers.removeAll() }
        } else {
            retainedContainer = (challenged.user.userID, challenged.container)
        }
        // Signed out by the user from another device: the app is not handed a nonce to sign in
        // again with, as a challenge event would; it hears that the user is gone, and why.
        if challenge.reason != .sessionSignedOut, !challenge.nonce.isEmpty {
            hub.publish(.authenticationChallenge(nonce: challenge.nonce, reason: challenge.reason))
        }

        let canAnswer =
            switch challenged.profile {
            case .identityToken: configuration.identityTokenProvider != nil
            case .registration: configuration.registrationCredentialsProvider != nil
            }
        guard mayRefresh, canAnswer, challenge.reason != .userSuspended, challenge.reason != .sessionSignedOut else {
            publishState()
            let reason: DeauthenticationReason =
                switch challenge.reason {
                case .sessionSignedOut: .signedOutFromAnotherDevice
                case .userSuspended: .userSuspended
                default: .challengeUnanswered
                }
            hub.publish(.didDeauthenticate(userID: challenged.user.userID, reason: reason))
            throw Self.unanswerable(challenge, userID: challenged.user.userID)
        }
        // Re-authenticating, not signed out: the flight's end says which it became.
        return .answering(
            startFlight(
                userID: challenged.user.userID, profile: challenged.profile,
                challengeNonce: challenge.nonce.isEmpty ? nil : challenge.nonce, origin: sentGeneration,
                reauthenticating: challenged.user, answerAfter: answerAfter))
    }

    /// The error of a request whose challenge the client does not answer: a sign-out from another
    /// device is an error of its own, because the app must not sign in again after it.
    private static func unanswerable(_ challenge: ChallengeDetails, userID: String?) -> VouchClientError {
        challenge.reason == .sessionSignedOut ? .signedOutFromAnotherDevice(userID: userID) : .challengeUnanswered(challenge)
    }

    /// Waits for the sign-in answering `challenge`; its failure is `challengeUnanswered`, with the
    /// challenge's nonce for the app and the attempt's own error as `underlying`. A sign-in
    /// overtaken by `deauthenticate()` or a user switch stays `superseded`.
    private func answer(_ challenge: ChallengeDetails, by refresh: Refresh) async throws(VouchClientError) {
        do {
            try await wait(for: refresh)
        } catch  where error.kind == .superseded || error.kind == .cancelled {
            throw error
        } catch {
            throw .challengeUnanswered(challenge, underlying: error)
        }
    }

    /// Waits for a sign-in in flight; its error is this caller's error, unless the same user has
    /// a session again by now (signed in by the app meanwhile). A cancelled caller stops waiting
    /// at once with `cancelled`.
    func wait(for refresh: Refresh) async throws(VouchClientError) {
        guard case .failure(let error) = await refresh.outcome.wait() else { return }
        if error.kind == .cancelled { throw error }
        if let session, session.user.userID == refresh.userID { return }
        throw error
    }
}
