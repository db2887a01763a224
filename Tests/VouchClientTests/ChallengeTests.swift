import Foundation
import Testing
import VouchClient
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The authentication challenge: any 401 deauthenticates at once; with a provider the client
/// answers by itself, once for any number of concurrent 401s, and never loops.
@Suite struct ChallengeTests {
    @Test func aRevocationIsAnsweredAutomaticallyAndTheEventsSayWhatHappened() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            try await client.connect(userID: "alice")
            let recorder = EventRecorder(client, count: 2)
            let states = StateRecorder(client, count: 3)
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)

            let me = try await client.currentUserFromServer()
            #expect(me.user.userID == "alice")
            #expect(backend.callCount == 2)
            let events = try await recorder.events()
            guard events.count == 2, case .authenticationChallenge(let nonce, .sessionRevoked) = events[0] else {
                Issue.record("unexpected events \(events)")
                return
            }
            // The challenge's own nonce was handed to the provider: no extra round trip.
            #expect(backend.noncesSeen.last == nonce)
            // Re-authenticated without a sign-out in between: an app's sign-in screen never flashes.
            guard case .didAuthenticate(let user) = events[1] else {
                Issue.record("no re-authentication: \(events)")
                return
            }
            #expect(user.userID == "alice")
            #expect(try await states.states() == [.signedIn(me.user), .reauthenticating(me.user), .signedIn(me.user)])
        }
    }

    @Test func twentyConcurrentRequestsOnARevokedSessionCauseExactlyOneProviderCall() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            try await client.connect(userID: "alice")
            #expect(backend.callCount == 1)
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)

            let users = try await concurrently(20) { try await client.currentUserFromServer().user.userID }
            #expect(users == Array(repeating: "alice", count: 20))
            #expect(backend.callCount == 2)
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
        }
    }

    @Test func aLaunchTimeHerdOfSignInsIsOneProviderCall() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            let users = try await concurrently(10) { try await client.connect(userID: "alice").userID }
            #expect(users == Array(repeating: "alice", count: 10))
            #expect(backend.callCount == 1)
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
        }
    }

    @Test func aSignInCallDuringAChallengeAnswerJoinsIt() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(backend)
            let refresh = try await bed.refreshInFlight(client, backend)
            let connect = Task { try await client.connect(userID: "alice") }
            refresh.gate.open()
            #expect(try await refresh.request.value.user.userID == "alice")
            #expect(try await connect.value.userID == "alice")
            #expect(backend.callCount == 2)  // the first sign-in, then one answer for both
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
        }
    }

    @Test func withoutAProviderTheChallengeReachesTheAppWithItsNonce() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client()
            let nonce = try #require(try await client.requestAuthenticationNonce())
            try await client.authenticate(identityToken: try await backend.identityTokenProvider("alice", nonce))
            let container = try await client.dataContainer()
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            do {
                _ = try await client.currentUserFromServer()
                Issue.record("a revoked session was accepted")
            } catch let error as VouchClientError {
                guard error.kind == .challengeUnanswered, let challenge = error.challenge else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(challenge.reason == .sessionRevoked)
                // The app answers it the LayerKit way, with the challenge's nonce.
                #expect(try await client.authenticatedUser() == nil)
                #expect(!FileManager.default.fileExists(atPath: container.path))
                try await client.authenticate(identityToken: try await backend.identityTokenProvider("alice", challenge.nonce))
                #expect(try await client.currentUserFromServer().user.userID == "alice")
            }
        }
    }

    @Test func aThrowingProviderEndsInATypedErrorAfterABoundedNumberOfCalls() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(backend)
            backend.become(.fail)
            let error = await #expect(throws: VouchClientError.self) { try await client.currentUserFromServer() }
            #expect(error?.kind == .challengeUnanswered)
            #expect(error?.underlying == .tokenProviderFailed(message: "backend unavailable"))
            #expect(backend.callCount == 1 + 3)  // the sign-in, then the policy's three attempts
            #expect(try await client.authenticatedUser() == nil)
            // Nothing keeps going after the error (no retry timer outlives it).
            await #expect(throws: VouchClientError.notAuthenticated) { try await client.currentUserFromServer() }
            #expect(backend.callCount == 4)
        }
    }

    @Test func aHangingProviderTimesOut() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(
                backend, providerTimeout: 1,
                retryPolicy: RetryPolicy(maximumAttempts: 2, initialDelaySeconds: 0.05, maximumDelaySeconds: 0.1))
            backend.become(.hang)
            defer { backend.releaseHangs() }
            do {
                _ = try await client.currentUserFromServer()
                Issue.record("a hanging provider answered")
            } catch let error as VouchClientError {
                // The documented error: the challenge, with its nonce, and why the answer failed.
                #expect(error.kind == .challengeUnanswered)
                #expect(error.challenge?.nonce.isEmpty == false)
                #expect(error.underlying == .tokenProviderTimedOut(seconds: 1))
            }
            #expect(backend.callCount == 1 + 2)
        }
    }

    @Test func aBadTokenFromTheProviderIsNotRetried() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(backend)
            backend.become(.garbage)
            do {
                _ = try await client.currentUserFromServer()
                Issue.record("a garbage token was accepted")
            } catch let error as VouchClientError {
                guard error.kind == .challengeUnanswered, error.challenge != nil, let cause = error.underlying,
                    cause.kind == .invalidIdentityToken, let rejection = cause.tokenRejection
                else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(rejection.knownReason == .malformedBase64URL || rejection.knownReason == .malformedJSON)
                #expect(rejection.serverTime != nil)
            }
            #expect(backend.callCount == 2)
        }
    }

    @Test func suspensionEndsTheSessionAndIsNeverRetried() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            try await client.connect(userID: "alice")
            let container = try await client.dataContainer()
            try await bed.admin.suspend("alice", appID: bed.appID)
            do {
                _ = try await client.currentUserFromServer()
                Issue.record("a suspended user's session was accepted")
            } catch let error as VouchClientError {
                guard error.kind == .challengeUnanswered, let challenge = error.challenge else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(challenge.reason == .userSuspended)
            }
            #expect(backend.callCount == 1)
            #expect(!FileManager.default.fileExists(atPath: container.path))
            // Signing in again is refused with the suspension, after one provider call.
            do {
                try await client.connect(userID: "alice")
                Issue.record("a suspended user signed in")
            } catch let error as VouchClientError {
                guard error.kind == .invalidIdentityToken, let rejection = error.tokenRejection else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(rejection.knownReason == .userSuspended)
            }
            #expect(backend.callCount == 2)
        }
    }

    @Test func deauthenticateDuringARefreshWinsAndTheLateResultIsDiscarded() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(backend)
            let refresh = try await bed.refreshInFlight(client, backend)
            #expect(try await client.deauthenticate() == .wasNotAuthenticated)  // the challenge already signed out
            refresh.gate.open()
            await #expect(throws: VouchClientError.superseded) { try await refresh.request.value }

            #expect(try await client.authenticatedUser() == nil)
            #expect(!SessionFile(bed.scratch).exists)
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 0)
            #expect(backend.callCount == 2)
        }
    }

    @Test func theAppsOwnRequestsCarryTheSession() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let (data, response) = try await client.data(for: URLRequest(url: bed.serverURL.appendingPathComponent("users/me")))
            #expect(response.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self).contains("\"alice\""))
        }
    }
}
