import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// Issue 40, items 3 and 5: a device the user signs out from another one forgets the user and
/// does not sign in again; an operator's revocation is still answered silently.
@Suite struct SignedOutDeviceTests {
    @Test func aDeviceSignedOutFromAnotherDeviceForgetsTheUserWithoutAskingItsBackend() async throws {
        try await TestBed.run { bed in
            let phoneStorage = bed.scratch.appendingPathComponent("phone")
            let laptopBackend = bed.backend()
            let phone = try bed.client(backend: bed.backend(), storage: phoneStorage)
            let laptop = try bed.client(backend: laptopBackend, storage: bed.scratch.appendingPathComponent("laptop"))
            try await phone.connect(userID: "alice")
            let alice = try await laptop.connect(userID: "alice")
            let laptopData = try await laptop.dataContainer()
            try Data("cached messages".utf8).write(to: laptopData.appendingPathComponent("cache"))
            let events = EventRecorder(laptop, count: 1)
            let states = StateRecorder(laptop, count: 2)

            let other = try #require(try await phone.devices().first { !$0.isCurrent })
            try await phone.signOut(deviceWith: other.id)

            let error = await #expect(throws: VouchClientError.self) { try await laptop.currentUserFromServer() }
            #expect(error?.kind == .signedOutFromAnotherDevice)
            #expect(error?.userID == "alice")
            #expect(laptopBackend.callCount == 1, "the laptop signed in again")
            // Told once, with the reason, and no challenge event: the app is not handed a nonce.
            #expect(try await events.events() == [.didDeauthenticate(userID: "alice", reason: .signedOutFromAnotherDevice)])
            #expect(try await states.states() == [.signedIn(alice), .signedOut])
            #expect(try await laptop.authenticatedUser() == nil)
            #expect(!FileManager.default.fileExists(atPath: laptopData.path), "the user's data survived")
            #expect(!SessionFile(bed.scratch.appendingPathComponent("laptop")).exists)
            // Nothing signs in later either, and the phone carries on.
            await #expect(throws: VouchClientError.notAuthenticated) { try await laptop.devices() }
            #expect(laptopBackend.callCount == 1)
            #expect(try await phone.devices().map(\.isCurrent) == [true])
        }
    }

    @Test func requestsInFlightWhenTheDeviceIsSignedOutAllFailWithoutASignIn() async throws {
        try await TestBed.run { bed in
            let laptopBackend = bed.backend()
            let phone = try bed.client(backend: bed.backend(), storage: bed.scratch.appendingPathComponent("phone"))
            let laptop = try bed.client(backend: laptopBackend, storage: bed.scratch.appendingPathComponent("laptop"))
            try await phone.connect(userID: "alice")
            try await laptop.connect(userID: "alice")
            #expect(try await phone.signOutOtherDevices() == 1)

            let kinds = try await concurrently(10) { () async throws -> VouchClientError.Kind? in
                do {
                    _ = try await laptop.currentUserFromServer()
                    return nil
                } catch let error as VouchClientError {
                    return error.kind
                }
            }
            #expect(kinds.contains(.signedOutFromAnotherDevice))
            #expect(kinds.allSatisfy { $0 == .signedOutFromAnotherDevice || $0 == .notAuthenticated }, "\(kinds)")
            #expect(laptopBackend.callCount == 1)
            #expect(laptop.currentState == .signedOut)
        }
    }

    @Test func signOutOtherDevicesSaysHowManyItEndedAndKeepsThisOne() async throws {
        try await TestBed.run { bed in
            let clients = try (0..<3).map { index in
                try bed.client(backend: bed.backend(), storage: bed.scratch.appendingPathComponent("device-\(index)"))
            }
            for client in clients { try await client.connect(userID: "alice") }
            #expect(try await clients[0].signOutOtherDevices() == 2)
            #expect(try await clients[0].signOutOtherDevices() == 0)
            #expect(try await clients[0].devices().count == 1)
            for client in clients.dropFirst() {
                await #expect(throws: VouchClientError.self) { try await client.devices() }
                #expect(client.currentState == .signedOut)
            }
        }
    }

    @Test func anOperatorsRevocationIsStillAnsweredSilently() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend)
            let alice = try await client.connect(userID: "alice")
            let events = EventRecorder(client, count: 2)
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)

            let devices = try await client.devices()
            #expect(devices.count == 1 && devices[0].isCurrent)
            #expect(backend.callCount == 2)
            let seen = try await events.events()
            guard case .authenticationChallenge(_, .sessionRevoked) = seen.first else {
                Issue.record("unexpected events \(seen)")
                return
            }
            #expect(seen.last == .didAuthenticate(alice))
            #expect(client.currentState == .signedIn(alice))
        }
    }

    @Test func aCutoffsReasonReachesTheAppWithItsChallenge() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client()
            let nonce = try #require(try await client.requestAuthenticationNonce())
            try await client.authenticate(identityToken: try await backend.identityTokenProvider("alice", nonce))
            let app = String(bed.appID.split(separator: "/").last ?? "")
            _ = try await bed.admin.call("POST", "admin/apps/\(app)/users/alice/cutoff", ["reason": "lost laptop"], expect: 200)
            let error = await #expect(throws: VouchClientError.self) { try await client.devices() }
            #expect(error?.kind == .challengeUnanswered)
            #expect(error?.challenge?.reason == .sessionRevoked)
            #expect(error?.challenge?.detail == "lost laptop")
        }
    }

    @Test func signingThisDeviceOutByItsOwnIdIsDeauthenticate() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let token = try SessionFile(bed.scratch).sessionToken()
            let events = EventRecorder(client, count: 1)
            let this = try #require(try await client.devices().first)
            try await client.signOut(deviceWith: this.id.uppercased())
            #expect(try await events.events() == [.didDeauthenticate(userID: "alice", reason: .requested)])
            #expect(client.currentState == .signedOut)
            #expect(try await bed.serverStatus(ofSession: token) == 401)
        }
    }

    @Test func anotherUsersOrAnUnknownDeviceIsNotFound() async throws {
        try await TestBed.run { bed in
            let alice = try bed.client(backend: bed.backend(), storage: bed.scratch.appendingPathComponent("alice"))
            let bob = try bed.client(backend: bed.backend(), storage: bed.scratch.appendingPathComponent("bob"))
            try await alice.connect(userID: "alice")
            try await bob.connect(userID: "bob")
            let bobsDevice = try #require(try await bob.devices().first)
            for id in [bobsDevice.id, UUID().uuidString, "../users/me"] {
                let error = await #expect(throws: VouchClientError.self) { try await alice.signOut(deviceWith: id) }
                #expect(error?.kind == .server && error?.status == 404 && error?.serverErrorID == "not_found", "\(id): \(String(describing: error))")
            }
            #expect(try await bob.currentUserFromServer().user.userID == "bob")
            #expect(try await alice.currentUserFromServer().user.userID == "alice")
        }
    }
}
