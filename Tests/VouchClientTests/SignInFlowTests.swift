import Foundation
import Testing
import VouchClient

/// LayerKit's flow against a live server: nonce → the app's backend → identity token → session.
@Suite struct SignInFlowTests {
    @Test func nonceTokenSessionAndTheServerSeesTheUser() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client()
            let nonce = try #require(try await client.requestAuthenticationNonce())
            let token = try await backend.identityTokenProvider("alice", nonce)
            let user = try await client.authenticate(identityToken: token)
            #expect(user.userID == "alice")
            #expect(try await client.authenticatedUser()?.userID == "alice")
            let me = try await client.currentUserFromServer()
            #expect(me.user.userID == "alice")

            // LayerKit: no nonce while authenticated; a second sign-in names who is in the way.
            #expect(try await client.requestAuthenticationNonce() == nil)
            let otherNonce = try await TestBed.rawNonce(bed)
            let otherToken = try await backend.identityTokenProvider("bob", otherNonce)
            await #expect(throws: VouchClientError.alreadyAuthenticated(userID: "alice")) {
                try await client.authenticate(identityToken: otherToken)
            }
            #expect(try await client.authenticatedUser()?.userID == "alice")
        }
    }

    @Test func theNonceIsBoundToTheClientsApp() async throws {
        try await TestBed.run { bed in
            let client = try bed.client()
            let nonce = try #require(try await client.requestAuthenticationNonce())
            // The same nonce offered to another app is unknown there (PROTOCOL §3, bound nonces).
            let otherApp = try await bed.admin.call("POST", "admin/apps", ["name": "Other"]).string("id")
            let other = try VouchClient(
                serverURL: bed.serverURL, appID: otherApp,
                configuration: .init(
                    storageDirectory: bed.scratch.appendingPathComponent("other"),
                    credentialStore: FileCredentialStore(directory: bed.scratch.appendingPathComponent("other"))))
            let token = try await bed.backend().identityTokenProvider("alice", nonce)
            do {
                try await other.authenticate(identityToken: token)
                Issue.record("a nonce bound to one app signed in to another")
            } catch let error as VouchClientError {
                guard error.kind == .invalidIdentityToken, let rejection = error.tokenRejection else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(rejection.reason == "eit_nonce_not_found" || rejection.reason == "eit_provider_not_bound_to_app")
            }
        }
    }

    @Test func aRefusedTokenIsATypedErrorWithTheServersReasonAndClock() async throws {
        try await TestBed.run { bed in
            let client = try bed.client()
            do {
                try await client.authenticate(identityToken: "only.two")
                Issue.record("a malformed token was accepted")
            } catch let error as VouchClientError {
                guard error.kind == .invalidIdentityToken, let rejection = error.tokenRejection else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(rejection.knownReason == .wrongJWSPartCount)
                #expect(!rejection.message.isEmpty)
                let serverTime = try #require(rejection.serverTime)
                #expect(abs(serverTime.timeIntervalSinceNow) < 600)
            }
            #expect(try await client.authenticatedUser() == nil)
        }
    }

    @Test func deauthenticateEndsTheSessionOnTheServerAndWipesLocalState() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let container = try await client.dataContainer()
            try Data("cached conversation".utf8).write(to: container.appendingPathComponent("messages.db"))
            let token = try SessionFile(bed.scratch).sessionToken()
            #expect(try await bed.serverStatus(ofSession: token) == 200)

            #expect(try await client.deauthenticate() == .confirmed)
            #expect(try await bed.serverStatus(ofSession: token) == 401)
            #expect(!FileManager.default.fileExists(atPath: container.path))
            #expect(!SessionFile(bed.scratch).exists)
            #expect(try await client.authenticatedUser() == nil)
            await #expect(throws: VouchClientError.notAuthenticated) { try await client.currentUserFromServer() }
            #expect(try await client.deauthenticate() == .wasNotAuthenticated)
        }
    }

    @Test func offlineDeauthenticateStillWipesAndSaysTheServerDidNotConfirm() async throws {
        try await TestBed.run { bed in
            let proxy = try FaultProxy(upstreamPort: bed.serverURL.port ?? 0)
            defer { proxy.stop() }
            let client = try bed.client(backend: bed.backend(), serverURL: proxy.url)
            try await client.connect(userID: "alice")
            let container = try await client.dataContainer()
            let token = try SessionFile(bed.scratch).sessionToken()

            proxy.setOffline(true)
            let result = try await client.deauthenticate()
            guard case .unconfirmed(let cause) = result, cause.kind == .network else {
                Issue.record("offline deauthentication answered \(result)")
                return
            }
            #expect(!FileManager.default.fileExists(atPath: container.path))
            #expect(!SessionFile(bed.scratch).exists)
            #expect(try await client.authenticatedUser() == nil)
            // The server never heard of it: the session is still valid there (it ends on expiry).
            #expect(try await bed.serverStatus(ofSession: token) == 200)
        }
    }

    /// Times in the SDK's public types are `Date`s, parsed from the server's RFC 3339.
    @Test func theServersViewOfTheSessionHasDates() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let me = try await client.currentUserFromServer()
            #expect(me.user.userID == "alice")
            #expect(abs(me.sessionCreatedAt.timeIntervalSinceNow) < 600)
            #expect(me.sessionExpiresAt > me.sessionCreatedAt)
        }
    }
}
