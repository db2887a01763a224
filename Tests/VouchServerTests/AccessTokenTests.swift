import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTestSupport

/// Access tokens, the JWKS and discovery over real HTTP (PROTOCOL §8.16).
@Suite("Access tokens: minted for a live session, ES256, verifiable from the JWKS alone")
struct AccessTokenTests {
    static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    /// The token's header and claims, decoded without trusting them.
    static func parts(_ token: String) throws -> (header: [String: Any], claims: [String: Any], signingInput: String, signature: Data) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count == 3, let header = base64URL(pieces[0]), let claims = base64URL(pieces[1]), let signature = base64URL(pieces[2]),
            let headerObject = try JSONSerialization.jsonObject(with: header) as? [String: Any],
            let claimsObject = try JSONSerialization.jsonObject(with: claims) as? [String: Any]
        else { throw TestFailure("not a compact JWS: \(token.prefix(40))…") }
        return (headerObject, claimsObject, pieces[0] + "." + pieces[1], signature)
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// Checks the signature against the JWKS as a third party would: the key by `kid`, from x and y.
    static func verifiesAgainstJWKS(_ token: String, server: LiveServer) async throws -> Bool {
        let parts = try parts(token)
        let jwks = try await server.request(.GET, "/.well-known/jwks.json").json["keys"] as? [[String: Any]] ?? []
        guard let jwk = jwks.first(where: { $0["kid"] as? String == parts.header["kid"] as? String }),
            let x = (jwk["x"] as? String).flatMap(base64URL), let y = (jwk["y"] as? String).flatMap(base64URL)
        else { return false }
        let key = try P256.Signing.PublicKey(rawRepresentation: x + y)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: parts.signature)
        return key.isValidSignature(signature, for: Data(parts.signingInput.utf8))
    }

    static func mint(_ server: LiveServer, session: String, audience: String? = nil) async throws -> HTTPResult {
        let body = audience.map { Fixture.json(["audience": $0]) }
        return try await server.request(.POST, "/sessions/access-token", body: body, headers: bearer(session))
    }

    @Test("a live session mints an ES256 at+jwt with every claim, verifiable from the JWKS")
    func minting() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let signIn = try await DeviceAPITests.signIn(fixture, user: "alice")
            let answer = try await Self.mint(server, session: signIn.token)
            #expect(answer.status == 200, "\(answer.text)")
            let token = try #require(answer.json["access_token"] as? String)
            let (header, claims, _, signature) = try Self.parts(token)
            #expect(header["alg"] as? String == "ES256")
            #expect(header["typ"] as? String == "at+jwt")
            #expect(signature.count == 64)
            let app = Fixture.bare(fixture.appID)
            #expect(claims["iss"] as? String == "http://127.0.0.1:\(server.port)")
            #expect(claims["sub"] as? String == "alice")
            #expect(claims["aud"] as? String == app)
            #expect(claims["app"] as? String == app)
            #expect(claims["sid"] as? String == signIn.id)
            let issuedAt = try #require(claims["iat"] as? Int64)
            #expect(issuedAt == server.clock.now)
            #expect(claims["exp"] as? Int64 == issuedAt + 300)
            #expect((claims["jti"] as? String)?.count == 22)
            let generations = try #require(claims["gen"] as? [String: Any])
            #expect(generations["app"] as? Int64 == 0 && generations["user"] as? Int64 == 0)
            #expect(generations["provider"] as? Int64 == 0 && generations["key"] as? Int64 == 0)
            #expect(claims["provider_id"] as? String == Fixture.bare(fixture.providerID))
            #expect(claims["key_id"] as? String == Fixture.bare(fixture.activeKey.id))
            #expect(answer.json["expires_at"] as? String == Timestamp.rfc3339(issuedAt + 300))
            #expect(try await Self.verifiesAgainstJWKS(token, server: server))
            // Two tokens of one session differ (jti), and neither contains the session token.
            let second = try #require(try await Self.mint(server, session: signIn.token).json["access_token"] as? String)
            #expect(second != token)
            #expect(!token.contains(signIn.token))
            // No session, an ended session: the challenge, as every authenticated request.
            #expect(try await server.request(.POST, "/sessions/access-token").status == 401)
            _ = try await server.request(.DELETE, "/sessions/id/\(signIn.id)", headers: Self.bearer(signIn.token))
            let ended = try await Self.mint(server, session: signIn.token)
            #expect(ended.status == 401)
            #expect(ended.data["nonce"] is String)
        }
    }

    @Test("audiences: the app's id by default, a registered one on request, any other refused; the app's lifetime, never past the session")
    func audiencesAndLifetimes() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let patched = try await server.request(
                .PATCH, "/admin/apps/\(app)", body: #"{"audiences":["chat","https://media.example.com"],"access_token_ttl_seconds":60}"#,
                admin: true)
            #expect(patched.status == 200, "\(patched.text)")
            #expect(patched.json["audiences"] as? [String] == ["chat", "https://media.example.com"])
            #expect(patched.json["access_token_ttl_seconds"] as? Int == 60)
            let session = try await fixture.signedInSession()
            let chat = try await Self.mint(server, session: session, audience: "chat")
            #expect(chat.status == 200, "\(chat.text)")
            let claims = try Self.parts(try #require(chat.json["access_token"] as? String)).claims
            #expect(claims["aud"] as? String == "chat")
            #expect((claims["exp"] as? Int64 ?? 0) - (claims["iat"] as? Int64 ?? 0) == 60)
            #expect(chat.json["audience"] as? String == "chat")
            #expect(try await Self.mint(server, session: session, audience: app).status == 200)
            let stranger = try await Self.mint(server, session: session, audience: "billing")
            #expect(stranger.status == 422)
            #expect(stranger.data["property"] as? String == "audience")
            let wrongType = try await server.request(
                .POST, "/sessions/access-token", body: #"{"audience":5}"#, headers: Self.bearer(session))
            #expect(wrongType.status == 422 || wrongType.status == 400, "\(wrongType.text)")

            // Bad settings are refused with the property named, and change nothing.
            for body in [
                #"{"access_token_ttl_seconds":0}"#, #"{"access_token_ttl_seconds":301}"#, #"{"audiences":["two words"]}"#,
                #"{"audiences":["a","a"]}"#, #"{"audiences":[""]}"#,
            ] {
                let refused = try await server.request(.PATCH, "/admin/apps/\(app)", body: body, admin: true)
                #expect(refused.status == 422, "\(body): \(refused.text)")
            }
            let shown = try await server.request(.GET, "/admin/apps/\(app)", admin: true).json
            #expect(shown["access_token_ttl_seconds"] as? Int == 60)
            #expect(shown["audiences"] as? [String] == ["chat", "https://media.example.com"])

            // A session with less than the lifetime left: the token ends with it.
            _ = try await server.request(.PATCH, "/admin/apps/\(app)", body: #"{"session_ttl_seconds":30}"#, admin: true)
            let short = try await fixture.signedInSession(user: "bob")
            server.clock.advance(by: 20)
            let clamped = try Self.parts(try #require(try await Self.mint(server, session: short).json["access_token"] as? String))
            #expect((clamped.claims["exp"] as? Int64 ?? 0) - server.clock.now == 10)
        }
    }

    @Test("the JWKS and the discovery document: the issuer, the key, a bounded cache lifetime, no private part")
    func wellKnown() async throws {
        try await LiveServer.run { server in
            let jwks = try await server.request(.GET, "/.well-known/jwks.json")
            #expect(jwks.status == 200)
            #expect(jwks.headers.first { $0.0.lowercased() == "cache-control" }?.1 == "public, max-age=300")
            let keys = try #require(jwks.json["keys"] as? [[String: Any]])
            #expect(keys.count == 1)
            #expect(keys[0]["kty"] as? String == "EC" && keys[0]["crv"] as? String == "P-256")
            #expect(keys[0]["alg"] as? String == "ES256" && keys[0]["use"] as? String == "sig")
            #expect(keys[0]["d"] == nil, "the private scalar is never published")
            let configuration = try await server.request(.GET, "/.well-known/openid-configuration").json
            let issuer = "http://127.0.0.1:\(server.port)"
            #expect(configuration["issuer"] as? String == issuer)
            #expect(configuration["jwks_uri"] as? String == issuer + "/.well-known/jwks.json")
            #expect(configuration["introspection_endpoint"] as? String == issuer + "/introspect")
            #expect(configuration["id_token_signing_alg_values_supported"] as? [String] == ["ES256"])
        }
    }

    @Test("a configured public URL is the issuer")
    func publicURL() async throws {
        try await LiveServer.run(configure: { $0.publicURL = "https://vouch.example.com/auth" }) { server in
            let fixture = try await Fixture.make(server)
            let session = try await fixture.signedInSession()
            let token = try #require(try await Self.mint(server, session: session).json["access_token"] as? String)
            #expect(try Self.parts(token).claims["iss"] as? String == "https://vouch.example.com/auth")
            let configuration = try await server.request(.GET, "/.well-known/openid-configuration").json
            #expect(configuration["jwks_uri"] as? String == "https://vouch.example.com/auth/.well-known/jwks.json")
        }
    }
}
