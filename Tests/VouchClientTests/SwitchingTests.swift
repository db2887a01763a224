import Foundation
import Testing
import VouchClient
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One device, several users; Sinch-style start; clock skew.
@Suite struct SwitchingTests {
    @Test func connectResumesTheSameUserAndSwitchesWithoutLeakingData() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            #expect(try await client.connect(userID: "alice").userID == "alice")
            let aliceContainer = try await client.dataContainer()
            try Data("alice's messages".utf8).write(to: aliceContainer.appendingPathComponent("messages.db"))

            #expect(try await client.connect(userID: "alice").userID == "alice")
            #expect(backend.callCount == 1)

            #expect(try await client.connect(userID: "bob").userID == "bob")
            #expect(backend.callCount == 2)
            let bobContainer = try await client.dataContainer()
            #expect(bobContainer != aliceContainer)
            #expect(!FileManager.default.fileExists(atPath: aliceContainer.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: bobContainer.path).isEmpty)
            #expect(try await client.currentUserFromServer().user.userID == "bob")
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 0)
        }
    }

    @Test func aSwitchInterruptedHalfWayLeavesNoDataOfThePreviousUser() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            try await client.connect(userID: "alice")
            let aliceContainer = try await client.dataContainer()
            try Data("alice's messages".utf8).write(to: aliceContainer.appendingPathComponent("messages.db"))
            backend.become(.fail)
            await #expect(throws: VouchClientError.tokenProviderFailed(message: "backend unavailable")) {
                try await client.connect(userID: "bob")
            }
            #expect(try await client.authenticatedUser() == nil)
            #expect(!FileManager.default.fileExists(atPath: aliceContainer.path))
            // A new instance (an app restart after the failure) sees nobody either.
            #expect(try await bed.client().authenticatedUser() == nil)
        }
    }

    @Test func aUserSwitchDuringARefreshWins() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try await bed.aliceRevoked(backend)
            let refresh = try await bed.refreshInFlight(client, backend)
            backend.become(.mint)
            #expect(try await client.connect(userID: "bob").userID == "bob")
            refresh.gate.open()
            await #expect(throws: VouchClientError.superseded) { try await refresh.request.value }
            #expect(try await client.authenticatedUser()?.userID == "bob")
            #expect(try await client.currentUserFromServer().user.userID == "bob")
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 0)
        }
    }

    @Test func sinchStyleStartAsksForCredentialsOnlyWhenThereIsNoSession() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            #expect(try await first.start(userID: "carol").userID == "carol")
            #expect(backend.callCount == 1)

            // A later launch resumes without asking.
            let second = try bed.client(backend: backend)
            #expect(try await second.start(userID: "carol").userID == "carol")
            #expect(backend.callCount == 1)

            // A revoked session is answered with new registration credentials.
            try await bed.admin.revokeSessions(of: "carol", appID: bed.appID)
            #expect(try await second.currentUserFromServer().user.userID == "carol")
            #expect(backend.callCount == 2)

            // After a sign-out the next start asks again.
            try await second.deauthenticate()
            let third = try bed.client(backend: backend)
            #expect(try await third.start(userID: "carol").userID == "carol")
            #expect(backend.callCount == 3)
        }
    }

    /// Issue 39, defect 6: LayerKit's rule, as documented: `start` does not switch users,
    /// `connect` does.
    @Test func sinchStyleStartRefusesAnotherUserAndKeepsTheSession() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            #expect(try await client.start(userID: "carol").userID == "carol")
            await #expect(throws: VouchClientError.alreadyAuthenticated(userID: "carol")) {
                try await client.start(userID: "dave")
            }
            #expect(backend.callCount == 1, "the provider was not asked for dave")
            #expect(try await client.authenticatedUser()?.userID == "carol")
            #expect(try await bed.admin.activeSessions(of: "carol", appID: bed.appID) == 1)
            // The same user again resumes; `connect` is the call that switches.
            #expect(try await client.start(userID: "carol").userID == "carol")
        }
    }

    @Test func clockSkewIsReportedWithTheServersTime() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            bed.serverClockOffset.set(3_600)
            do {
                try await client.connect(userID: "alice")
                Issue.record("an expired token was accepted")
            } catch let error as VouchClientError {
                guard error.kind == .invalidIdentityToken, let rejection = error.tokenRejection else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(rejection.knownReason == .expired)
                let skew = try #require(rejection.clockSkewSeconds)
                #expect((3_300...3_900).contains(skew))
                #expect(rejection.serverTime != nil)
            }
            #expect(backend.callCount == 1)

            bed.serverClockOffset.set(-3_600)
            do {
                try await client.connect(userID: "alice")
                Issue.record("a token from the future was accepted")
            } catch let error as VouchClientError {
                guard error.kind == .invalidIdentityToken, let rejection = error.tokenRejection else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(rejection.knownReason == .notBefore)
                let skew = try #require(rejection.clockSkewSeconds)
                #expect((-3_900 ... -3_300).contains(skew))
            }
        }
    }
}

/// A request of the previous user is never sent again with the next user's session.
@Suite struct CrossUserRetryTests {
    @Test func aChallengeArrivingAfterASwitchDoesNotReplayTheRequestAsTheNewUser() async throws {
        try await TestBed.run { bed in
            try await HoldingService.run { service in
                let client = try bed.client(backend: bed.backend(), sessionOrigins: [service.url])
                try await client.connect(userID: "alice")
                let aliceRequest = Task { try await client.data(for: URLRequest(url: service.url)) }
                try await service.entered.wait()
                try await client.connect(userID: "bob")
                service.release.open()
                await #expect(throws: VouchClientError.superseded) { try await aliceRequest.value }
                #expect(service.authorizations.count == 1)
                #expect(try await client.authenticatedUser()?.userID == "bob")
                #expect(try await client.currentUserFromServer().user.userID == "bob")
            }
        }
    }
}
