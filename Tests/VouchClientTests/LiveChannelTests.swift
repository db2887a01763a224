import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// Issue 41, item 5: the client keeps the live channel (PROTOCOL §8.15) open while signed in, over
/// a real WebSocket to a real server, and acts on what it hears exactly as on a 401.
@Suite struct LiveChannelTests {
    @Test func theChannelOpensAfterSignInAndSaysWhichSessionItFollows() async throws {
        try await TestBed.run { bed in
            let live = try await bed.aliceLive()
            let session = try #require(try await live.client.devices().first(where: \.isCurrent))
            #expect(live.transport.openedCount == 1)
            #expect(live.log.liveEvents == [.liveChannelConnected(sessionID: session.id)])
        }
    }

    @Test func anOperatorsRevocationIsAnsweredOverTheSameSocketWithOneIdentityToken() async throws {
        try await TestBed.run { bed in
            let (client, backend, transport, log, alice) = try await bed.aliceLive().parts
            let before = try SessionFile(bed.scratch).sessionToken()
            let session = try #require(try await client.devices().first(where: \.isCurrent))
            let mark = log.events.count

            try await bed.admin.revokeSession(session.id)

            // Heard and answered without a request of the app's.
            try await log.first(where: { $0 == .liveChannelReauthenticated(alice) })
            #expect(backend.callCount == 2, "one identity token for the sign-in, one for the answer")
            let seen = Array(log.events.dropFirst(mark))
            guard seen.count == 4, case .liveChannelChallenge(.sessionRevoked, let after) = seen[0],
                case .authenticationChallenge(_, .sessionRevoked) = seen[1]
            else {
                Issue.record("unexpected events \(seen)")
                return
            }
            #expect(after == 0, "one session's ending is not spread")
            #expect(seen[2] == .didAuthenticate(alice))
            #expect(seen[3] == .liveChannelReauthenticated(alice))
            // The same socket carries on: no disconnection, no second socket.
            #expect(transport.openedCount == 1)
            #expect(!seen.contains { $0.disconnection != nil })
            // The new session is persisted as a sign-in's is, and is the only live one.
            let after401 = try SessionFile(bed.scratch).sessionToken()
            #expect(after401 != before)
            #expect(try await bed.serverStatus(ofSession: after401) == 200)
            #expect(try await bed.serverStatus(ofSession: before) == 401)
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
            #expect(client.currentState == .signedIn(alice))
            // The app's next request goes through with it, asking nobody.
            #expect(try await client.currentUserFromServer().user.userID == "alice")
            #expect(backend.callCount == 2)
            // A later client on the same storage resumes the new session.
            #expect(try await bed.client(backend: backend).currentUserFromServer().user.userID == "alice")
            #expect(backend.callCount == 2)
        }
    }

    @Test func a401RacingAFrameForTheSameEndingCausesOneIdentityTokenRequest() async throws {
        try await TestBed.run { bed in
            let (client, backend, transport, log, alice) = try await bed.aliceLive().parts
            let mark = log.events.count
            // The answer is held in the app's backend until both the frame and the 401s are in.
            let entered = Latch(), gate = Latch()
            backend.become(.gated(entered: entered, gate: gate))

            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            let requests = Task { try await concurrently(5) { try await client.currentUserFromServer().user.userID } }
            try await entered.wait()
            try await log.first(where: { if case .liveChannelChallenge = $0 { true } else { false } })
            gate.open()

            #expect(try await requests.value == Array(repeating: "alice", count: 5))
            #expect(backend.callCount == 2, "the 401s and the frame were answered \(backend.callCount - 1) times")
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
            #expect(client.currentState == .signedIn(alice))
            #expect(log.events.dropFirst(mark).filter { $0 == .didAuthenticate(alice) }.count == 1)
            // The socket held the challenge, so the one answer went over it and the socket carries on.
            #expect(log.events.contains(.liveChannelReauthenticated(alice)))
            #expect(transport.openedCount == 1)
        }
    }

    @Test func anAnswerLaterThanTheMarginGoesOverHTTPAndTheChannelReopensWithTheNewSession() async throws {
        try await TestBed.run { bed in
            try await bed.admin.setChallengeMargin(5, appID: bed.appID)
            let (client, backend, _, log, alice) = try await bed.aliceLive().parts
            let entered = Latch(), gate = Latch()
            backend.become(.gated(entered: entered, gate: gate))

            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            try await entered.wait()
            // The backend is slower than the margin: the server gives up on the socket.
            let closed = try await log.first(within: 15, where: { $0.disconnection?.closeCode == 4001 })
            #expect(closed.disconnection?.reason == .closedByServer)
            #expect(closed.disconnection?.reconnectDelaySeconds != nil)
            gate.open()

            try await log.first(where: { $0 == .didAuthenticate(alice) })
            try await log.connected(2)
            #expect(backend.callCount == 2)
            #expect(!log.events.contains(.liveChannelReauthenticated(alice)), "answered on a closed socket")
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
            #expect(try await client.currentUserFromServer().user == alice)
            #expect(backend.callCount == 2)
        }
    }

    @Test func aDeviceSignedOutFromAnotherOneIsWipedByTheFrameAlone() async throws {
        try await TestBed.run { bed in
            let laptopStorage = bed.scratch.appendingPathComponent("laptop")
            let laptopBackend = bed.backend()
            let phone = try bed.client(backend: bed.backend(), storage: bed.scratch.appendingPathComponent("phone"))
            let laptop = try bed.client(backend: laptopBackend, storage: laptopStorage, liveChannel: .over(WebSocketTransport()))
            try await phone.connect(userID: "alice")
            try await laptop.connect(userID: "alice")
            let container = try await laptop.dataContainer()
            let log = EventLog(laptop)
            try await log.connected()

            let other = try #require(try await phone.devices().first { !$0.isCurrent })
            try await phone.signOut(deviceWith: other.id)

            // No request of the laptop's: the frame alone signs it out.
            try await log.first(where: { $0 == .didDeauthenticate(userID: "alice", reason: .signedOutFromAnotherDevice) })
            #expect(laptop.currentState == .signedOut)
            #expect(!FileManager.default.fileExists(atPath: container.path), "the user's data survived")
            #expect(!SessionFile(laptopStorage).exists)
            #expect(laptopBackend.callCount == 1, "the laptop signed in again")
            #expect(!log.events.contains { if case .authenticationChallenge = $0 { true } else { false } })
            // The channel is closed for good: its last word says it does not come back.
            try await Task.sleep(for: .seconds(1))
            let last = try #require(log.events.last(where: \.isLiveChannelEvent)?.disconnection)
            #expect(last.reconnectDelaySeconds == nil, "\(last)")
            #expect(log.events.filter(\.isConnected).count == 1, "the channel reopened for a signed-out device")
        }
    }

    @Test func aSuspensionHeardOnTheChannelWipesTheUser() async throws {
        try await TestBed.run { bed in
            let (client, backend, _, log, _) = try await bed.aliceLive().parts
            let container = try await client.dataContainer()

            try await bed.admin.suspend("alice", appID: bed.appID)

            try await log.first(where: { $0 == .didDeauthenticate(userID: "alice", reason: .userSuspended) })
            #expect(client.currentState == .signedOut)
            #expect(!FileManager.default.fileExists(atPath: container.path))
            #expect(!SessionFile(bed.scratch).exists)
            #expect(backend.callCount == 1, "a suspension was answered")
            try await Task.sleep(for: .seconds(1))
            #expect(log.events.filter(\.isConnected).count == 1, "the channel reopened for a suspended user")
        }
    }

    @Test func theClientReconnectsToAnotherInstanceWhenTheServerRestarts() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let transport = WebSocketTransport()
            // The client reaches the server through a relay, as through a load balancer: first to a
            // second instance on the same store, which then shuts down, then to the first.
            let first = try #require(bed.serverURL.port)
            let relay = try FaultProxy(upstreamPort: first)
            defer { relay.stop() }
            let client = try bed.client(backend: backend, serverURL: relay.url, liveChannel: .over(transport))
            let log = EventLog(client)
            let alice = try await bed.secondInstance { second in
                relay.redirect(toPort: try #require(second.port))
                let alice = try await client.connect(userID: "alice")
                try await log.connected()
                relay.redirect(toPort: first)
                return alice
            }  // the second instance shuts down here, as on SIGTERM

            let closed = try #require(try await log.first(where: { $0.disconnection?.reason == .closedByServer }).disconnection)
            #expect(closed.closeCode == 1012, "\(closed)")
            let delay = try #require(closed.reconnectDelaySeconds)
            #expect((0...5).contains(delay))
            try await log.connected(2)
            #expect(transport.openedCount == 2)
            #expect(client.currentState == .signedIn(alice))
            #expect(backend.callCount == 1, "the restart cost a sign-in")
        }
    }

    @Test func withTheOptionOffNoSocketIsOpened() async throws {
        try await TestBed.run { bed in
            let transport = WebSocketTransport()
            let backend = bed.backend()
            let client = try VouchClient(
                serverURL: bed.serverURL, appID: bed.appID,
                configuration: .init(
                    storageDirectory: bed.scratch, credentialStore: FileCredentialStore(directory: bed.scratch),
                    identityTokenProvider: backend.identityTokenProvider, liveChannel: false, liveChannelTransport: transport))
            let log = EventLog(client)
            try await client.connect(userID: "alice")
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            #expect(try await client.currentUserFromServer().user.userID == "alice")
            try await Task.sleep(for: .seconds(1))
            #expect(transport.openedCount == 0)
            #expect(log.liveEvents.isEmpty)
            #expect(backend.callCount == 2)
        }
    }

    /// `URLSessionWebSocketTask` needs a libcurl with WebSockets under FoundationNetworking: where
    /// it has none, the channel says once that it is unavailable and the client stays on HTTP,
    /// never retrying in a loop; where it has them, the channel opens.
    @Test func theDefaultTransportOpensTheChannelOrSaysOnceThatItCannot() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let client = try bed.client(backend: backend, liveChannel: .platformDefault)
            let log = EventLog(client)
            let alice = try await client.connect(userID: "alice")
            let first = try await log.first(where: \.isLiveChannelEvent)
            if first.isConnected { return }
            #expect(first.disconnection?.reason == .unavailable)
            #expect(first.disconnection?.reconnectDelaySeconds == nil)

            // HTTP carries on as without a channel: a revocation is answered on the next request.
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            #expect(try await client.currentUserFromServer().user == alice)
            #expect(backend.callCount == 2)
            try await Task.sleep(for: .seconds(2))
            #expect(log.liveEvents.count == 1, "the channel kept trying: \(log.liveEvents)")
        }
    }
}
