import Foundation
import Testing
import VouchProtocol

/// PROTOCOL §8.4: a nonce requested with an `app_id`, and every challenge nonce of a session,
/// admits a sign-in to that app only; an unbound nonce keeps admitting any app.
@Suite("Nonces bound to an app")
struct NonceBindingTests {
    /// The fixture with its provider bound to the second app as well: the replay this prevents.
    private static func twoAppFixture(_ server: LiveServer) async throws -> Fixture {
        let fixture = try await Fixture.make(server)
        let bind = try await server.request(
            .PUT, "/admin/providers/\(Fixture.bare(fixture.providerID))/apps/\(Fixture.bare(fixture.otherAppID))", admin: true)
        #expect(bind.status == 204)
        return fixture
    }

    private static func boundNonce(_ server: LiveServer, app: String) async throws -> String {
        let answer = try await server.post("/nonces", ["app_id": app])
        #expect(answer.status == 201, "\(answer.text)")
        return try #require(answer.json["nonce"] as? String)
    }

    @Test("a nonce bound to one app does not admit a sign-in to another, and stays usable for its own")
    func boundNonceRefusedElsewhere() async throws {
        try await LiveServer.run { server in
            let fixture = try await Self.twoAppFixture(server)
            let nonce = try await Self.boundNonce(server, app: fixture.appID)
            let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now))

            let elsewhere = try await fixture.signIn(token, app: fixture.otherAppID)
            #expect(elsewhere.status == 422)
            #expect(elsewhere.data["reason"] as? String == "eit_nonce_not_found")
            #expect(elsewhere.data["claim"] as? String == "nce")
            #expect((elsewhere.data["hint"] as? String)?.contains("another app") == true, "\(elsewhere.text)")

            let validated = try await server.post(
                "/admin/tools/validate-identity-token",
                ["identity_token": token, "app_id": fixture.otherAppID], admin: true)
            let reasons = validated.json["reasons"] as? [[String: Any]] ?? []
            #expect(reasons.map { $0["reason"] as? String } == ["eit_nonce_not_found"], "\(validated.text)")
            #expect((reasons.first?["hint"] as? String)?.contains("another app") == true, "the validation tool says why")

            #expect(try await fixture.signIn(token).status == 201, "the refused attempt did not consume the nonce")
        }
    }

    @Test("an unbound nonce, and an empty or {} body, keep admitting any app")
    func unboundNonces() async throws {
        try await LiveServer.run { server in
            let fixture = try await Self.twoAppFixture(server)
            for body in [nil, "{}", #"{"app_id": null}"#] {
                let answer = try await server.request(.POST, "/nonces", body: body)
                #expect(answer.status == 201, "\(body ?? "no body"): \(answer.text)")
                let nonce = try #require(answer.json["nonce"] as? String)
                let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now))
                #expect(try await fixture.signIn(token, app: fixture.otherAppID).status == 201)
            }
        }
    }

    @Test("POST /nonces refuses an unknown or malformed app_id, and a body of the wrong shape")
    func badNonceRequests() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            for app in ["layer:///apps/\(UUID().uuidString.lowercased())", "not an app", "", "layer:///providers/\(Fixture.bare(fixture.appID))"] {
                let answer = try await server.post("/nonces", ["app_id": app])
                #expect(answer.status == 403, "\(app): \(answer.text)")
                #expect(answer.json["id"] as? String == "invalid_app_id")
            }
            let wrongType = try await server.request(.POST, "/nonces", body: #"{"app_id": 7}"#)
            #expect(wrongType.status == 422)
            #expect(wrongType.data["property"] as? String == "app_id")
            #expect(try await server.request(.POST, "/nonces", body: "[]").status == 400)
            #expect(try await server.request(.POST, "/nonces", body: "{}", contentType: "text/plain").status == 400)
        }
    }

    @Test("a challenge nonce is bound to the session's app")
    func challengeNonceBound() async throws {
        try await LiveServer.run { server in
            let fixture = try await Self.twoAppFixture(server)
            let session = try await fixture.signedInSession()
            #expect(try await server.request(.DELETE, "/sessions/\(session)").status == 204)
            let challenge = try await server.request(
                .GET, "/users/me",
                headers: ["Authorization": "Layer session-token=\"\(session)\""])
            #expect(challenge.status == 401)
            let nonce = try #require(challenge.data["nonce"] as? String)
            let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now))
            #expect(try await fixture.signIn(token, app: fixture.otherAppID).data["reason"] as? String == "eit_nonce_not_found")
            #expect(try await fixture.signIn(token).status == 201, "it answers the challenge for the session's app")
        }
    }
}
