import Foundation
import Testing
import VouchProtocol

@Suite("Cutoffs over real HTTP (PROTOCOL §8.14)")
struct CutoffAPITests {
    static func challenge(_ server: LiveServer, _ token: String) async throws -> (status: Int, reason: String?, detail: String?) {
        let answer = try await server.request(.GET, "/users/me", headers: DeviceAPITests.bearer(token))
        let data = answer.json["data"] as? [String: Any]
        return (answer.status, data?["reason"] as? String, data?["detail"] as? String)
    }

    @Test("each scope's cutoff ends its sessions, answered session_revoked with the reason; later ones live")
    func everyScope() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let scopes: [(path: String, scope: String)] = [
                ("/admin/keys/\(Fixture.bare(fixture.activeKey.id))/cutoff", "key"),
                ("/admin/providers/\(Fixture.bare(fixture.providerID))/cutoff", "provider"),
                ("/admin/apps/\(app)/users/alice/cutoff", "user"),
                ("/admin/apps/\(app)/cutoff", "app"),
            ]
            for (path, scope) in scopes {
                let before = try await fixture.signedInSession(user: "alice")
                let status = try await server.request(.GET, path, admin: true)
                #expect(status.status == 200, "\(scope): \(status.text)")
                #expect(try status.decode(CutoffStatusResponse.self).liveSessions == 1, "\(scope)")

                let cut = try await server.post(path, ["reason": "\(scope) incident"], admin: true)
                #expect(cut.status == 200, "\(scope): \(cut.text)")
                let response = try cut.decode(CutoffResponse.self)
                #expect(
                    response
                        == CutoffResponse(
                            scope: scope, cutoffAt: Timestamp.rfc3339(server.clock.now), reason: "\(scope) incident", sessionsEnded: 1))
                let answered = try await Self.challenge(server, before)
                #expect(answered.status == 401)
                #expect(answered.reason == "session_revoked", "\(scope)")
                #expect(answered.detail == "\(scope) incident", "\(scope)")

                // In the same second, after the cutoff returned: untouched.
                let after = try await fixture.signedInSession(user: "alice")
                #expect(try await Self.challenge(server, after).status == 200, "\(scope)")
                let now = try await server.request(.GET, path, admin: true).decode(CutoffStatusResponse.self)
                #expect(now.cutoff == CutoffStatusResponse.Cutoff(cutoffAt: Timestamp.rfc3339(server.clock.now), reason: "\(scope) incident"))
                #expect(now.liveSessions == 1)
                // Clean slate for the next scope.
                _ = try await server.request(.POST, "/admin/apps/\(app)/cutoff", admin: true)
            }
            let metrics = try await server.request(.GET, "/metrics").text
            #expect(metrics.contains(#"vouch_sessions_ended_total{kind="cut_off"} 8"#), "\(metrics)")

            let audit = try await server.request(.GET, "/admin/audit?kind=admin", admin: true).json
            let cutoffs = (audit["events"] as? [[String: Any]] ?? []).filter {
                (($0["detail"] as? [String: Any])?["action"] as? String)?.hasPrefix("cutoff.") == true
            }
            #expect(cutoffs.count == 8)
            let keyEvent = try #require(cutoffs.last)
            #expect((keyEvent["detail"] as? [String: Any])?["action"] as? String == "cutoff.key")
            #expect((keyEvent["detail"] as? [String: Any])?["reason"] as? String == "1 sessions ended; reason: key incident")
            #expect(keyEvent["actor"] as? String == "api")
        }
    }

    @Test("GET before any cutoff answers null; a body is optional")
    func noCutoffYet() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let path = "/admin/apps/\(Fixture.bare(fixture.appID))/cutoff"
            let status = try await server.request(.GET, path, admin: true)
            #expect(status.text.contains(#""cutoff":null"#), "\(status.text)")
            let cut = try await server.request(.POST, path, admin: true)
            #expect(cut.status == 200, "\(cut.text)")
            #expect(cut.text.contains(#""reason":null"#))
            #expect(try cut.decode(CutoffResponse.self).sessionsEnded == 0)
        }
    }

    @Test("bad input: unknown or foreign ids, a deleted key, a bad reason: clear 4xx, nothing changed")
    func refusals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let session = try await fixture.signedInSession(user: "alice")
            let refused: [(method: HTTPMethod, path: String, body: String?, status: Int)] = [
                (.POST, "/admin/apps/\(UUID().uuidString)/cutoff", nil, 404),
                (.POST, "/admin/widgets/\(UUID().uuidString)/cutoff", nil, 404),
                (.POST, "/admin/sessions/\(UUID().uuidString)/cutoff", nil, 404),
                (.POST, "/admin/apps/not-an-id/cutoff", nil, 404),
                (.POST, "/admin/providers/\(UUID().uuidString)/cutoff", nil, 404),
                (.POST, "/admin/keys/\(UUID().uuidString)/cutoff", nil, 404),
                (.POST, "/admin/apps/\(app)/users/nobody/cutoff", nil, 404),
                (.POST, "/admin/apps/\(Fixture.bare(fixture.otherAppID))/users/alice/cutoff", nil, 404),
                (.POST, "/admin/keys/\(Fixture.bare(fixture.deletedKey.id))/cutoff", nil, 409),
                (.GET, "/admin/keys/\(Fixture.bare(fixture.deletedKey.id))/cutoff", nil, 409),
                (.POST, "/admin/apps/\(app)/cutoff", #"{"reason":"bell\u0007"}"#, 422),
                (.POST, "/admin/apps/\(app)/cutoff", #"{"reason":""}"#, 422),
                (.POST, "/admin/apps/\(app)/cutoff", "{\"reason\":\"\(String(repeating: "x", count: 10_000))\"}", 422),
                (.POST, "/admin/apps/\(app)/cutoff", #"{"reason":5}"#, 422),
                (.POST, "/admin/apps/\(app)/cutoff", "{", 400),
                (.DELETE, "/admin/sessions/\(UUID().uuidString)", nil, 404),
                (.DELETE, "/admin/sessions/nonsense", nil, 404),
            ]
            for (method, path, body, status) in refused {
                let answer = try await server.request(method, path, body: body, admin: true)
                #expect(answer.status == status, "\(method) \(path) \(body ?? ""): \(answer.status) \(answer.text)")
                #expect(answer.json["id"] as? String != nil, "an error body")
            }
            #expect(try await Self.challenge(server, session).status == 200, "a refused cutoff changed something")
            let status = try await server.request(.GET, "/admin/apps/\(app)/cutoff", admin: true)
            #expect(status.text.contains(#""cutoff":null"#))
            #expect(try await server.request(.POST, "/admin/apps/\(app)/cutoff", admin: false).status == 403)
        }
    }

    @Test("an operator's revocation by session id is session_revoked, not a sign-out")
    func operatorRevokesOneDevice() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let phone = try await DeviceAPITests.signIn(fixture, user: "alice")
            let laptop = try await DeviceAPITests.signIn(fixture, user: "alice")
            #expect(try await server.request(.DELETE, "/admin/sessions/\(phone.id)", admin: true).status == 204)
            let answered = try await Self.challenge(server, phone.token)
            #expect(answered.reason == "session_revoked")
            #expect(answered.detail == nil)
            #expect(try await Self.challenge(server, laptop.token).status == 200)
            let audit = try await server.request(.GET, "/admin/audit?kind=admin", admin: true).json
            let event = try #require((audit["events"] as? [[String: Any]])?.first)
            #expect((event["detail"] as? [String: Any])?["action"] as? String == "session.revoke")
            #expect((event["object"] as? [String: Any])?["id"] as? String == phone.id)
        }
    }
}
