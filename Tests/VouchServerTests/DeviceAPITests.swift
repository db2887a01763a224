import Foundation
import Testing
import VouchProtocol
import VouchTestSupport

@Suite("Devices: a user's own sessions over real HTTP (PROTOCOL §8.14)")
struct DeviceAPITests {
    /// A Layer sign-in of `user` describing `device`; returns the session token and its public id.
    static func signIn(_ fixture: Fixture, user: String, device: [String: Any]? = nil) async throws -> (token: String, id: String) {
        let server = fixture.server
        let token = try fixture.layerToken(claims: fixture.layerClaims(user: user, nonce: try await server.nonce(), now: server.clock.now))
        var body: [String: Any] = ["identity_token": token, "app_id": fixture.appID]
        if let device { body["device"] = device }
        let answer = try await server.post("/sessions", body)
        guard answer.status == 201, let session = answer.json["session_token"] as? String, let id = answer.json["session_id"] as? String
        else { throw TestFailure("sign-in answered \(answer.status): \(answer.text)") }
        return (session, id)
    }

    static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    @Test("every sign-in is a device: listed with its description, the caller's marked current, ids never the token")
    func listing() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let phone = try await Self.signIn(
                fixture, user: "alice", device: ["name": "Alice's phone", "platform": "iOS 18.1", "app_version": "2.4 (311)"])
            server.clock.advance(by: 5)
            let laptop = try await Self.signIn(fixture, user: "alice")
            _ = try await Self.signIn(fixture, user: "bob")
            #expect(phone.id != laptop.id)
            #expect(UUID(uuidString: phone.id) != nil)
            #expect(!phone.token.contains(phone.id.replacingOccurrences(of: "-", with: "")))

            let answer = try await server.request(.GET, "/sessions", headers: Self.bearer(laptop.token))
            #expect(answer.status == 200, "\(answer.text)")
            let listed = try answer.decode(SessionListResponse.self).sessions
            #expect(listed.map(\.sessionID) == [phone.id, laptop.id], "alice's two, oldest first, not bob's")
            #expect(listed[0].device == DeviceDescription(name: "Alice's phone", platform: "iOS 18.1", appVersion: "2.4 (311)"))
            #expect(listed[1].device == nil)
            #expect(listed.map(\.current) == [false, true])
            #expect(listed[0].providerID == fixture.providerID)
            #expect(listed[0].keyID == Fixture.bare(fixture.activeKey.id))
            #expect(answer.text.contains(#""device":null"#))
            #expect(!answer.text.contains(phone.token) && !answer.text.contains(laptop.token))

            let me = try await server.request(.GET, "/users/me", headers: Self.bearer(phone.token)).decode(CurrentUserResponse.self)
            #expect(me.session.sessionID == phone.id)

            // The operator's view: the same sessions, none current.
            let admin = try await server.request(.GET, "/admin/apps/\(Fixture.bare(fixture.appID))/users/alice/sessions", admin: true)
            #expect(try admin.decode(SessionListResponse.self).sessions.map(\.sessionID) == [phone.id, laptop.id])
            #expect(try admin.decode(SessionListResponse.self).sessions.allSatisfy { !$0.current })
            #expect(try await server.request(.GET, "/sessions").status == 401)
        }
    }

    @Test("a device description out of the rules is a 422 naming the field, and nothing is signed in")
    func badDevices() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let cases: [(device: Any, property: String)] = [
                (["name": "line\nbreak"], "device.name"),
                (["platform": String(repeating: "x", count: 10_000)], "device.platform"),
                (["app_version": ""], "device.app_version"),
                (["name": "evil\u{202E}txt"], "device.name"),
            ]
            for (device, property) in cases {
                let token = try fixture.layerToken(
                    claims: fixture.layerClaims(user: "mallory", nonce: try await server.nonce(), now: server.clock.now))
                let answer = try await server.post("/sessions", ["identity_token": token, "app_id": fixture.appID, "device": device])
                #expect(answer.status == 422, "\(property): \(answer.text)")
                #expect((answer.json["data"] as? [String: Any])?["property"] as? String == property)
                // The nonce was not consumed: the same token still signs in.
                #expect(try await fixture.signIn(token).status == 201, "\(property): the refusal consumed the nonce")
            }
            let wrongType = try await server.post(
                "/sessions", ["identity_token": "x", "app_id": fixture.appID, "device": ["name": 5]])
            #expect((400..<500).contains(wrongType.status), "\(wrongType.status)")
        }
    }

    @Test("signing a device out answers it session_signed_out; another user's id is 404 like an unknown one")
    func signOutOneDevice() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let laptop = try await Self.signIn(fixture, user: "alice")
            let phone = try await Self.signIn(fixture, user: "alice")
            let bob = try await Self.signIn(fixture, user: "bob")

            for id in [bob.id, UUID().uuidString.lowercased(), "not-a-uuid"] {
                let refused = try await server.request(.DELETE, "/sessions/id/\(id)", headers: Self.bearer(laptop.token))
                #expect(refused.status == 404, "\(id): \(refused.text)")
            }
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(bob.token)).status == 200)

            let signedOut = try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: Self.bearer(laptop.token))
            #expect(signedOut.status == 204)
            let challenged = try await server.request(.GET, "/users/me", headers: Self.bearer(phone.token))
            #expect(challenged.status == 401)
            #expect((challenged.json["data"] as? [String: Any])?["reason"] as? String == "session_signed_out")
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(laptop.token)).status == 200)
            // Idempotent for the caller.
            #expect(try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: Self.bearer(laptop.token)).status == 204)

            let audit = try await server.request(.GET, "/admin/audit?kind=user", admin: true).json
            let event = try #require((audit["events"] as? [[String: Any]])?.first)
            #expect(event["actor"] as? String == "user")
            #expect((event["detail"] as? [String: Any])?["action"] as? String == "session.sign_out")
            #expect(((event["detail"] as? [String: Any])?["reason"] as? String)?.contains(phone.id) == true)
            #expect((audit["events"] as? [[String: Any]])?.count == 1, "a repeated sign-out of an ended session is not recorded again")
        }
    }

    @Test("sign out every other device: the caller stays, the others are signed out, the count comes back")
    func signOutOthers() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let mine = try await Self.signIn(fixture, user: "alice")
            let others = [try await Self.signIn(fixture, user: "alice"), try await Self.signIn(fixture, user: "alice")]
            let bob = try await Self.signIn(fixture, user: "bob")
            let answer = try await server.request(.POST, "/sessions/sign-out-others", headers: Self.bearer(mine.token))
            #expect(answer.status == 200)
            #expect(try answer.decode(SessionsEndedResponse.self).sessionsEnded == 2)
            for other in others {
                let challenged = try await server.request(.GET, "/users/me", headers: Self.bearer(other.token))
                #expect((challenged.json["data"] as? [String: Any])?["reason"] as? String == "session_signed_out")
            }
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(mine.token)).status == 200)
            #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(bob.token)).status == 200)
            let metrics = try await server.request(.GET, "/metrics").text
            #expect(metrics.contains(#"vouch_sessions_ended_total{kind="signed_out"} 2"#), "\(metrics)")
        }
    }

    @Test("last_seen_at: written at most once a minute, so requests within the minute write nothing")
    func lastSeenOncePerMinute() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let created = server.clock.now
            let session = try await Self.signIn(fixture, user: "alice")
            func lastSeen() async throws -> Int64? {
                let listed = try await server.request(.GET, "/sessions", headers: Self.bearer(session.token))
                return try listed.decode(SessionListResponse.self).sessions.first.flatMap { Timestamp.parse($0.lastSeenAt) }
            }
            func marks() async throws -> Int {
                let text = try await server.request(.GET, "/metrics").text
                let prefix = #"vouch_store_operation_duration_seconds_count{operation="markSessionSeen"} "#
                let line = text.split(separator: "\n").first { $0.hasPrefix(prefix) } ?? ""
                return Int(line.dropFirst(prefix.count)) ?? -1
            }
            for _ in 0..<20 { #expect(try await server.request(.GET, "/users/me", headers: Self.bearer(session.token)).status == 200) }
            server.clock.advance(by: 59)
            #expect(try await lastSeen() == created)
            #expect(try await marks() == 0, "a request within the minute wrote")
            server.clock.advance(by: 1)
            _ = try await server.request(.GET, "/users/me", headers: Self.bearer(session.token))
            #expect(try await marks() == 1)
            #expect(try await lastSeen() == created + 60)
            for _ in 0..<20 { _ = try await server.request(.GET, "/users/me", headers: Self.bearer(session.token)) }
            #expect(try await marks() == 1)
        }
    }
}
