import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// The observable state: a snapshot for the first frame, and a stream that starts with the
/// current state; a silent re-authentication is not a sign-out.
@Suite struct StateTests {
    @Test func aRestoredSessionIsTheStateFromInitAndEveryNewStreamStartsWithIt() async throws {
        try await TestBed.run { bed in
            let first = try bed.client(backend: bed.backend())
            #expect(first.currentState == .signedOut)
            let alice = try await first.connect(userID: "alice")
            #expect(first.currentState == .signedIn(alice))

            // A relaunch: right from init, without awaiting the client.
            let relaunched = try bed.client(backend: bed.backend())
            #expect(relaunched.currentState == .signedIn(alice))
            #expect(relaunched.currentUser == alice)
            #expect(try await StateRecorder(relaunched, count: 1).states() == [.signedIn(alice)])
        }
    }

    @Test func signingInIsAStateOfItsOwn() async throws {
        try await TestBed.run { bed in
            let entered = Latch(), gate = Latch()
            let client = try bed.client(backend: bed.backend(.gated(entered: entered, gate: gate)))
            let states = StateRecorder(client, count: 3)
            let signIn = Task { try await client.connect(userID: "alice") }
            try await entered.wait()
            #expect(client.currentState == .signingIn(userID: "alice"))
            #expect(client.currentUser == nil)
            gate.open()
            let alice = try await signIn.value
            #expect(try await states.states() == [.signedOut, .signingIn(userID: "alice"), .signedIn(alice)])
        }
    }

    /// Defect 8: a challenge answered by the client is `reauthenticating`, and only a failed
    /// answer is a sign-out, told once, after the challenge.
    @Test func aChallengeTheClientCannotAnswerEndsInSignedOutAfterReauthenticating() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(
                backend, retryPolicy: RetryPolicy(maximumAttempts: 2, initialDelaySeconds: 0.05, maximumDelaySeconds: 0.1))
            let alice = try #require(client.currentUser)
            let events = EventRecorder(client, count: 2)
            let states = StateRecorder(client, count: 3)
            backend.become(.fail)
            await #expect(throws: VouchClientError.self) { try await client.currentUserFromServer() }
            let seen = try await events.events()
            guard case .authenticationChallenge(_, .sessionRevoked) = seen.first else {
                Issue.record("unexpected events \(seen)")
                return
            }
            #expect(seen.last == .didDeauthenticate(userID: "alice", reason: .challengeUnanswered))
            #expect(try await states.states() == [.signedIn(alice), .reauthenticating(alice), .signedOut])
        }
    }

    @Test func deauthenticatingDuringAReauthenticationSignsTheUserOutAndSaysSo() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(backend)
            let alice = try #require(client.currentUser)
            let inFlight = try await bed.refreshInFlight(client, backend)
            #expect(client.currentState == .reauthenticating(alice))
            let events = EventRecorder(client, count: 1)
            try await client.deauthenticate()
            #expect(try await events.events() == [.didDeauthenticate(userID: "alice", reason: .requested)])
            #expect(client.currentState == .signedOut)
            inFlight.gate.open()
            _ = await inFlight.request.result
            #expect(client.currentState == .signedOut)
        }
    }
}

/// The `@Observable` model follows the client, from its current state on.
@Suite struct ModelTests {
    @MainActor @Test func theModelFollowsTheClientsState() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            let model = await VouchClientModel(client: client)
            #expect(await model.state == .signedOut)
            let alice = try await client.connect(userID: "alice")
            try await Self.until { await model.user == alice }
            try await client.deauthenticate()
            try await Self.until { await model.state == .signedOut }
        }
    }

    static func until(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<3_000 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("the model did not follow within 30 s")
    }
}

/// Errors keep their cause: the provider's own error, URLSession's code, a missing provider as
/// a configuration error.
@Suite struct ErrorCauseTests {
    @Test func aProvidersOwnErrorIsKept() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(
                backend: bed.backend(.fail), retryPolicy: RetryPolicy(maximumAttempts: 1, initialDelaySeconds: 0.05, maximumDelaySeconds: 0.1))
            do {
                try await client.connect(userID: "alice")
                Issue.record("a failing provider signed alice in")
            } catch let error as VouchClientError {
                #expect(error.kind == .tokenProviderFailed)
                #expect(error.providerError is Backend.Unavailable)
            }
        }
    }

    @Test func aMissingProviderIsAConfigurationError() async throws {
        try await TestBed.run { bed in
            let client = try bed.client()
            await #expect(throws: VouchClientError.providerNotConfigured(message: "connect(userID:) needs Configuration.identityTokenProvider")) {
                try await client.connect(userID: "alice")
            }
            do {
                try await client.start(userID: "alice")
            } catch let error as VouchClientError {
                #expect(error.kind == .providerNotConfigured)
            }
        }
    }

    @Test func aNetworkFailureCarriesURLSessionsCode() async throws {
        // A port nothing listens on: the connection is refused.
        let client = try VouchClient(
            serverURL: URL(string: "http://127.0.0.1:1")!, appID: "layer:///apps/\(UUID().uuidString)",
            configuration: .init(storageDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("vouch-\(UUID().uuidString)")))
        do {
            _ = try await client.requestAuthenticationNonce()
            Issue.record("a nonce from nowhere")
        } catch {
            #expect(error.kind == .network)
            #expect(error.urlErrorCode == .cannotConnectToHost)
        }
    }
}
