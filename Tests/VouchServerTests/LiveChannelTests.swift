import Foundation
import Testing
import VouchLiveTestSupport
import VouchProtocol
import VouchTestSupport

@Suite("The live channel over real sockets (PROTOCOL §8.15)")
struct LiveChannelTests {
    static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    /// A socket opened with `token`, its `ready` frame read.
    static func open(_ server: LiveServer, token: String) async throws -> (LiveSocketClient, [String: Any]) {
        let socket = try await LiveSocketClient.open(port: server.port, headers: bearer(token))
        guard let ready = await socket.nextObject(), ready["type"] as? String == "ready" else {
            throw TestFailure("the first frame was not ready")
        }
        return (socket, ready)
    }

    static func identityToken(_ fixture: Fixture, user: String, nonce: String) throws -> String {
        try fixture.layerToken(claims: fixture.layerClaims(user: user, nonce: nonce, now: fixture.server.clock.now))
    }

    @Test("a revoked session hears a challenge and carries on under a new session on the same socket")
    func revokeAndAnswer() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice", device: ["name": "Alice's phone"])
            let (socket, ready) = try await Self.open(server, token: alice.token)
            #expect(ready["session_id"] as? String == alice.id)
            #expect(ready["margin_seconds"] as? Int == 30)
            #expect(ready["expires_at"] is String)

            #expect(try await server.request(.DELETE, "/admin/sessions/\(alice.id)", admin: true).status == 204)
            let challenge = try #require(await socket.nextObject())
            #expect(challenge["type"] as? String == "challenge")
            #expect(challenge["reason"] as? String == "session_revoked")
            #expect(challenge["answerable"] as? Bool == true)
            #expect(challenge["answer_within_seconds"] as? Int == 30)
            #expect(challenge["answer_after_ms"] as? Int == 0)
            let nonce = try #require(challenge["nonce"] as? String)

            try await socket.send(
                #"{"type": "authenticate", "identity_token": "\#(try Self.identityToken(fixture, user: "alice", nonce: nonce))"}"#)
            let answer = try #require(await socket.nextObject())
            #expect(answer["type"] as? String == "authenticated", "\(answer)")
            let newToken = try #require(answer["session_token"] as? String)
            let newID = try #require(answer["session_id"] as? String)
            #expect(newID != alice.id)
            #expect((answer["user"] as? [String: Any])?["user_id"] as? String == "alice")
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(newToken)).status == 200)
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(alice.token)).status == 401)
            // The new session kept the old one's device, and the socket follows it now.
            let listed = try await server.request(.GET, "/sessions", headers: Self.bearer(newToken)).decode(SessionListResponse.self)
            #expect(listed.sessions.first { $0.sessionID == newID }?.device?.name == "Alice's phone")
            #expect(try await server.request(.DELETE, "/admin/sessions/\(newID)", admin: true).status == 204)
            #expect(await socket.nextObject()?["reason"] as? String == "session_revoked")
            #expect(await socket.end(timeout: .milliseconds(200)) == nil, "still open: the client has its margin")
        }
    }

    @Test("a device signed out from another is told signed_out and closed with 4004")
    func signedOut() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let phone = try await DeviceAPITests.signIn(fixture, user: "alice")
            let laptop = try await DeviceAPITests.signIn(fixture, user: "alice")
            let (socket, _) = try await Self.open(server, token: phone.token)
            let (bystander, _) = try await Self.open(server, token: laptop.token)
            #expect(try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: Self.bearer(laptop.token)).status == 204)
            #expect(await socket.nextObject()?["type"] as? String == "signed_out")
            #expect(await socket.end() == .closed(code: 4004, reason: "signed_out"))
            #expect(await bystander.next(timeout: .milliseconds(300)) == nil, "the laptop hears nothing")
            // A frame after the ending is refused: the socket is gone.
            await #expect(throws: (any Error).self) { try await socket.send(#"{"type": "authenticate", "identity_token": "x"}"#) }
        }
    }

    @Test("a suspended user's challenge says so, cannot be answered, and the socket closes with 4003")
    func suspended() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            let (socket, _) = try await Self.open(server, token: alice.token)
            let suspend = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))/users/alice", body: #"{"suspended": true}"#, admin: true)
            #expect(suspend.status == 200, "\(suspend.text)")
            let challenge = try #require(await socket.nextObject())
            #expect(challenge["reason"] as? String == "user_suspended")
            #expect(challenge["answerable"] as? Bool == false)
            #expect(challenge["nonce"] is NSNull)
            #expect(await socket.end() == .closed(code: 4003, reason: "user_suspended"))
        }
    }

    @Test("an unanswered challenge closes the socket with 4001 after the app's margin; expiry challenges too")
    func marginAndExpiry() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let patch = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))", body: #"{"challenge_margin_seconds": 5, "session_ttl_seconds": 60}"#,
                admin: true)
            #expect(patch.status == 200 && patch.json["challenge_margin_seconds"] as? Int == 5, "\(patch.text)")
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            let (socket, ready) = try await Self.open(server, token: alice.token)
            #expect(ready["margin_seconds"] as? Int == 5)

            server.clock.advance(by: 61)
            let challenge = try #require(await socket.nextObject())
            #expect(challenge["reason"] as? String == "session_expired")
            #expect(challenge["answer_within_seconds"] as? Int == 5)
            // A wrong answer is refused as POST /sessions refuses it, and the challenge stays.
            try await socket.send(#"{"type": "authenticate", "identity_token": "not-a-token"}"#)
            let refused = try #require(await socket.nextObject())
            #expect(refused["type"] as? String == "error")
            #expect(refused["status"] as? Int == 422)
            #expect((refused["error"] as? [String: Any])?["id"] as? String == "invalid_property")
            server.clock.advance(by: 6)
            #expect(await socket.end(timeout: .seconds(5)) == .closed(code: 4001, reason: "challenge_unanswered"))
            let metrics = try await server.request(.GET, "/metrics").text
            #expect(metrics.contains(#"vouch_live_challenges_total{outcome="expired"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"vouch_live_challenges_total{outcome="pushed"} 1"#))
        }
    }

    @Test("frames out of turn are refused with an error frame and change nothing; a binary frame closes with 1003")
    func refusedFrames() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            let (socket, _) = try await Self.open(server, token: alice.token)
            for (frame, status, id) in [
                (#"{"type": "authenticate", "identity_token": "x"}"#, 409, "conflict"),
                (#"{"type": "hello"}"#, 400, "invalid_request"),
                ("not json", 400, "invalid_request"),
                (#"{"type": "authenticate"}"#, 422, "missing_property"),
                (#"{"type": "authenticate", "type": "x"}"#, 400, "invalid_request"),
            ] {
                try await socket.send(frame)
                let answer = try #require(await socket.nextObject(), "\(frame)")
                #expect(answer["type"] as? String == "error")
                #expect(answer["status"] as? Int == status, "\(frame): \(answer)")
                #expect((answer["error"] as? [String: Any])?["id"] as? String == id, "\(frame)")
            }
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(alice.token)).status == 200)
            try await socket.sendBinary([1, 2, 3])
            #expect(await socket.end() == .closed(code: 1003, reason: nil))
        }
    }

    @Test("a frame over 16 KiB closes the socket with 1009")
    func oversizedFrame() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            let (socket, _) = try await Self.open(server, token: alice.token)
            try await socket.send(#"{"type": "authenticate", "identity_token": "\#(String(repeating: "a", count: 17 * 1024))"}"#)
            #expect(await socket.end() == .closed(code: 1009, reason: nil))
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(alice.token)).status == 200)
        }
    }

    @Test("upgrades are refused as routes answer: 401 challenge, 426 without the upgrade, 429 past 8 sockets")
    func refusals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            let raw = try RawConnection(port: server.port)
            await raw.send(Array("GET /sessions/live HTTP/1.1\r\nHost: x\r\n\(upgrade)\r\n".utf8))
            let answer = String(decoding: await raw.readUntilClosed(within: 5).bytes, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer)")
            #expect(answer.lowercased().contains("www-authenticate: layer nonce="))
            #expect(answer.contains(#""reason":"missing_credentials""#))

            let plain = try await server.request(.GET, "/sessions/live", headers: Self.bearer(alice.token))
            #expect(plain.status == 426)
            #expect(plain.json["id"] as? String == "upgrade_required")
            #expect(try await server.request(.GET, "/sessions/live").status == 401)

            var sockets: [LiveSocketClient] = []
            for _ in 0..<8 { sockets.append(try await Self.open(server, token: alice.token).0) }
            let ninth = try RawConnection(port: server.port)
            await ninth.send(Array("GET /sessions/live HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(alice.token)\r\n\(upgrade)\r\n".utf8))
            let refused = String(decoding: await ninth.readUntilClosed(within: 5).bytes, as: UTF8.self)
            #expect(refused.hasPrefix("HTTP/1.1 429"), "\(refused)")
            await sockets[0].close()
            _ = await sockets[0].end()
            try await Task.sleep(for: .milliseconds(200))
            _ = try await Self.open(server, token: alice.token)
            let metrics = try await server.request(.GET, "/metrics").text
            #expect(metrics.contains("vouch_live_sockets 8"), "\(metrics)")
        }
    }

    @Test("a browser's ticket opens one socket, once, within 30 s, and never travels in the URL")
    func tickets() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            let issued = try await server.request(.POST, "/sessions/live-ticket", headers: Self.bearer(alice.token))
            #expect(issued.status == 201, "\(issued.text)")
            let ticket = try #require(issued.json["ticket"] as? String)
            #expect(ticket.count == 43)
            let offer = ["Sec-WebSocket-Protocol": "vouch.live.v1, vouch.ticket.\(ticket)"]
            let socket = try await LiveSocketClient.open(port: server.port, headers: offer)
            #expect(await socket.nextObject()?["session_id"] as? String == alice.id)
            await #expect(throws: (any Error).self) { _ = try await LiveSocketClient.open(port: server.port, headers: offer) }

            let late = try #require(
                try await server.request(.POST, "/sessions/live-ticket", headers: Self.bearer(alice.token)).json["ticket"] as? String)
            server.clock.advance(by: 31)
            await #expect(throws: (any Error).self) {
                _ = try await LiveSocketClient.open(port: server.port, headers: ["Sec-WebSocket-Protocol": "vouch.live.v1, vouch.ticket.\(late)"])
            }
            #expect(try await server.request(.POST, "/sessions/live-ticket").status == 401)
        }
    }

    @Test("an app cutoff reaches every socket of the app, spread over the margin, and no other app's")
    func cutoffSpread() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            var sockets: [LiveSocketClient] = []
            for index in 0..<6 {
                let session = try await DeviceAPITests.signIn(fixture, user: "user\(index)")
                sockets.append(try await Self.open(server, token: session.token).0)
            }
            let cutoff = try await server.request(
                .POST, "/admin/apps/\(Fixture.bare(fixture.appID))/cutoff", body: #"{"reason": "key leak"}"#, admin: true)
            #expect(cutoff.status == 200, "\(cutoff.text)")
            for socket in sockets {
                let challenge = try #require(await socket.nextObject())
                #expect(challenge["reason"] as? String == "session_revoked")
                #expect(challenge["detail"] as? String == "key leak")
                // Six sockets at 100 a second: spread over the first 60 ms.
                let after = try #require(challenge["answer_after_ms"] as? Int)
                #expect((0..<60).contains(after), "\(after)")
            }
        }
    }

    @Test("a server shutting down closes every socket with 1012, so that clients reconnect elsewhere")
    func shutdown() async throws {
        let held = Shared<LiveSocketClient?>(nil)
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let alice = try await DeviceAPITests.signIn(fixture, user: "alice")
            held.set(try await Self.open(server, token: alice.token).0)
        }
        let socket = try #require(held.value)
        let end = await socket.end()
        #expect(end == .closed(code: 1012, reason: "service_restart"), "\(String(describing: end))")
    }
}
