import Foundation
import Testing
import VouchProtocol
import VouchStoreSQLite
import VouchTokens

@Suite("Client API (PROTOCOL §3) over real HTTP")
struct ClientAPITests {
    @Test("GET /health answers ok while the store answers")
    func health() async throws {
        try await LiveServer.run { server in
            let answer = try await server.request(.GET, "/health")
            #expect(answer.status == 200)
            #expect(answer.text == #"{"status":"ok"}"#)
        }
    }

    @Test("POST /nonces gives a fresh ≥32-byte nonce living 10 minutes")
    func nonces() async throws {
        try await LiveServer.run { server in
            let first = try await server.request(.POST, "/nonces")
            let second = try await server.request(.POST, "/nonces")
            #expect(first.status == 201)
            #expect(first.header("Content-Type") == "application/json; charset=utf-8")
            let nonce = try #require(first.json["nonce"] as? String)
            #expect(nonce != second.json["nonce"] as? String)
            #expect((Base64URL.decodeCanonical(nonce)?.count ?? 0) >= 32)
            let expiresAt = try #require(first.json["expires_at"] as? String)
            #expect(Timestamp.parse(expiresAt) == server.clock.now + 600)
        }
    }

    @Test("sign-in, /users/me, identity claims update the stored identity")
    func signInAndCurrentUser() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let now = server.clock.now
            var claims = fixture.layerClaims(user: "ada lovelace/1", nonce: try await server.nonce(), now: now)
            claims["display_name"] = "Ada"
            claims["avatar_url"] = "https://example.com/ada.png"
            let answer = try await fixture.signIn(try fixture.layerToken(claims: claims))
            #expect(answer.status == 201, "\(answer.text)")
            let session = try answer.decode(SessionResponse.self)
            #expect(session.user.userID == "ada lovelace/1")
            #expect(session.user.id == "layer:///identities/ada%20lovelace%2F1")
            #expect(session.user.displayName == "Ada")
            #expect(session.user.firstName == nil)
            #expect(answer.text.contains(#""first_name":null"#), "absent identity fields are null")
            #expect(Timestamp.parse(session.expiresAt) == now + 2_592_000)
            #expect((Base64URL.decodeCanonical(session.sessionToken)?.count ?? 0) >= 32)

            let me = try await server.request(.GET, "/users/me", headers: ["Authorization": "Layer session-token=\"\(session.sessionToken)\""])
            #expect(me.status == 200)
            let current = try me.decode(CurrentUserResponse.self)
            #expect(current.user == session.user)
            #expect(Timestamp.parse(current.session.expiresAt) == now + 2_592_000)

            claims["nce"] = try await server.nonce()
            claims["display_name"] = "Countess"
            claims["avatar_url"] = nil
            let again = try await fixture.signIn(try fixture.layerToken(claims: claims))
            let updated = try again.decode(SessionResponse.self).user
            #expect(updated.displayName == "Countess")
            #expect(updated.avatarURL == "https://example.com/ada.png", "a claim left out keeps the stored value")
        }
    }

    @Test("all three Authorization forms are accepted")
    func authorizationForms() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let token = try await fixture.signedInSession()
            for header in ["Layer session-token=\"\(token)\"", "Layer session-token='\(token)'", "Bearer \(token)"] {
                #expect(try await server.request(.GET, "/users/me", headers: ["Authorization": header]).status == 200, "\(header)")
            }
        }
    }

    @Test("the challenge names why, and its nonce signs in again")
    func challengeRoundTrip() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let session = try await fixture.signedInSession()
            #expect(try await server.request(.DELETE, "/sessions/\(session)").status == 204)

            let challenge = try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(session)"])
            #expect(challenge.status == 401)
            #expect(challenge.json["id"] as? String == "authentication_required")
            #expect(challenge.json["code"] as? Int == 4)
            #expect(challenge.data["reason"] as? String == "session_revoked")
            let nonce = try #require(challenge.data["nonce"] as? String)
            #expect(challenge.header("WWW-Authenticate") == "Layer nonce=\"\(nonce)\"")

            let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now))
            let again = try await fixture.signIn(token)
            #expect(again.status == 201)
            let newSession = try #require(again.json["session_token"] as? String)
            #expect(try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(newSession)"]).status == 200)
        }
    }

    @Test("challenge reasons: missing, unknown, expired, revoked, suspended")
    func challengeReasons() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            func reason(_ headers: [String: String]) async throws -> String? {
                let answer = try await server.request(.GET, "/users/me", headers: headers)
                #expect(answer.status == 401)
                #expect(answer.data["nonce"] is String)
                return answer.data["reason"] as? String
            }
            #expect(try await reason([:]) == "missing_credentials")
            #expect(try await reason(["Authorization": "Basic dXNlcjpwYXNz"]) == "missing_credentials")
            #expect(try await reason(["Authorization": "Layer session-token=unquoted"]) == "missing_credentials")
            #expect(try await reason(["Authorization": "Bearer " + String(repeating: "x", count: 5000)]) == "missing_credentials")
            #expect(try await reason(["Authorization": "Bearer never-issued"]) == "session_unknown")

            let suspended = try await fixture.signedInSession(user: "carol")
            let path = "/admin/apps/\(Fixture.bare(fixture.appID))/users/carol"
            #expect(try await server.request(.PATCH, path, body: #"{"suspended":true}"#, admin: true).status == 200)
            #expect(try await reason(["Authorization": "Bearer \(suspended)"]) == "user_suspended")
            #expect(try await server.request(.PATCH, path, body: #"{"suspended":false}"#, admin: true).status == 200)
            #expect(
                try await reason(["Authorization": "Bearer \(suspended)"]) == "session_revoked",
                "lifting a suspension does not bring its ended sessions back")

            let expiring = try await fixture.signedInSession(user: "dave")
            server.clock.advance(by: 2_592_000)
            #expect(try await reason(["Authorization": "Bearer \(expiring)"]) == "session_expired")
        }
    }

    @Test("DELETE /sessions/<t> is idempotent and never challenges")
    func deauthenticate() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let session = try await fixture.signedInSession()
            for _ in 0..<2 {
                let answer = try await server.request(.DELETE, "/sessions/\(session)", headers: ["Authorization": "Bearer garbage"])
                #expect(answer.status == 204)
                #expect(answer.body.isEmpty)
            }
            #expect(try await server.request(.DELETE, "/sessions/never-issued").status == 204)
            #expect(try await server.request(.DELETE, "/sessions/" + String(repeating: "y", count: 2000)).status == 204)
        }
    }

    /// Also with the SQLite store's read connections (inline, as `vouch serve` runs them, and
    /// queued), so the look-ups on one connection and the session's transaction on another still
    /// admit one.
    @Test(
        "one nonce, twenty concurrent sign-ins: exactly one session",
        arguments: [SQLiteReadConnection.never, .inline, .always])
    func concurrentSingleUseNonce(readConnection: SQLiteReadConnection) async throws {
        try await LiveServer.run(readConnection: readConnection) { server in
            let fixture = try await Fixture.make(server)
            let nonce = try await server.nonce()
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for index in 0..<20 {
                    // Distinct tokens (different iat) for the same nonce, as a replaying attacker would send.
                    let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now - Int64(index)))
                    group.addTask {
                        let answer = try await fixture.signIn(token)
                        return (answer.status, answer.data["reason"] as? String)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 201 }.count == 1)
            #expect(statuses.filter { $0.0 == 422 && $0.1 == "eit_nonce_not_found" }.count == 19)
        }
    }

    @Test("Sinch registration token signs in; a replay is refused")
    func sinchSignIn() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let minter = try SinchTokenMinter(applicationKey: fixture.registration.key, applicationSecret: fixture.registration.secret)
            let token = try minter.mint(userID: "bob_1", issuedAt: server.clock.now)
            let answer = try await fixture.signIn(token)
            #expect(answer.status == 201, "\(answer.text)")
            #expect(try answer.decode(SessionResponse.self).user.userID == "bob_1")
            let replay = try await fixture.signIn(token)
            #expect(replay.data["reason"] as? String == "eit_nonce_replayed")
            let wrongApp = try await fixture.signIn(try minter.mint(userID: "bob_1", issuedAt: server.clock.now), app: fixture.otherAppID)
            #expect(wrongApp.data["reason"] as? String == "eit_provider_not_bound_to_app")
        }
    }

    @Test("the per-app session TTL sets expires_at")
    func sessionTTL() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let patch = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))",
                body: #"{"session_ttl_seconds":30}"#, admin: true)
            #expect(patch.status == 200)
            let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now))
            let answer = try await fixture.signIn(token)
            #expect(Timestamp.parse(answer.json["expires_at"] as? String ?? "") == server.clock.now + 30)
        }
    }

    @Test("POST /sessions keeps the device the client described; a device member of the wrong type is 422 naming it")
    func device() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let signedIn = try await fixture.signedInDevice(["name": "Alice's phone", "platform": "iOS 18.1", "app_version": "2.4.1"])
            let listed = try await server.request(.GET, "/sessions", headers: ["Authorization": "Bearer \(signedIn.token)"])
            let device = (listed.json["sessions"] as? [[String: Any]])?.first?["device"] as? [String: Any]
            #expect(device?["name"] as? String == "Alice's phone" && device?["platform"] as? String == "iOS 18.1")
            #expect(device?["app_version"] as? String == "2.4.1")

            for (body, property) in [(#"{"name": 7}"#, "device.name"), (#""phone""#, "device")] {
                let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now))
                let answer = try await server.request(
                    .POST, "/sessions", body: #"{"identity_token": "\#(token)", "app_id": "\#(fixture.appID)", "device": \#(body)}"#)
                #expect(answer.status == 422 && answer.data["property"] as? String == property, "\(answer.text)")
            }
        }
    }
}
