import Foundation
import VouchKeySourceTestSupport
import Testing
import VouchServer
import VouchStore
import VouchTestSupport
import VouchTokens

/// PROTOCOL §8.18: a federated provider's own ID tokens sign users in, with keys from its issuer's
/// discovery document, `aud` bound to its client id, an hour's life at most, and once each.
@Suite("Federated ID tokens", .serialized, .timeLimit(.minutes(5)))
struct FederatedSignInTests {
    struct Provider: Sendable {
        let server: LiveServer
        let jwks: JWKSServer
        let appID: String
        let providerID: String
        let clientID = "client-1"

        var issuer: String { jwks.baseURL }

        static func make(_ server: LiveServer, _ jwks: JWKSServer, algorithm: String = "RS256", bind: Bool = true) async throws -> Provider {
            let app = try await server.post("/admin/apps", ["name": "Chat"], admin: true).json["id"] as? String ?? ""
            let created = try await server.post(
                "/admin/providers",
                ["name": "Identity", "issuer": jwks.baseURL, "client_id": "client-1", "federated": true, "algorithm": algorithm],
                admin: true)
            guard created.status == 201, let provider = created.json["id"] as? String else {
                throw TestFailure("provider creation answered \(created.status): \(created.text)")
            }
            if bind {
                _ = try await server.request(.PUT, "/admin/providers/\(Fixture.bare(provider))/apps/\(Fixture.bare(app))", admin: true)
            }
            return Provider(server: server, jwks: jwks, appID: app, providerID: provider)
        }

        func claims(subject: String = "ada", ttl: Int64 = 600, extra: [String: Any] = [:]) -> [String: Any] {
            let now = server.clock.now
            var claims: [String: Any] = ["iss": issuer, "sub": subject, "aud": clientID, "iat": now, "exp": now + ttl]
            claims.merge(extra) { $1 }
            return claims
        }

        func idToken(_ key: PublishedKey, claims: [String: Any]? = nil, header: [String: Any]? = nil) throws -> String {
            let alg = if case .p256 = key.key { "ES256" } else { "RS256" }
            return try key.sign(header: header ?? ["alg": alg, "kid": key.kid, "typ": "JWT"], claims: claims ?? self.claims())
        }

        func signIn(_ token: String) async throws -> HTTPResult {
            try await server.post("/sessions", ["identity_token": token, "app_id": appID])
        }
    }

    /// The test flag, and a fetch limit that a suite starting hundreds of servers at once cannot
    /// exceed (the 5 s bound itself is `unsafeSources`' to test).
    static func loopback(_ configuration: inout ServerConfiguration) {
        configuration.allowsLoopbackOutbound = true
        configuration.keySources.fetchTimeLimit = .seconds(60)
    }

    @Test("an ID token signs its sub in, with the profile's standard claims; the same token again is eit_token_replayed")
    func signInAndReplay() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let key = try PublishedKey.rsa("idp-1", index: 0)
                jwks.publish([key])
                let provider = try await Provider.make(server, jwks)
                let token = try provider.idToken(
                    key, claims: provider.claims(extra: ["name": "Ada Lovelace", "picture": "https://img.example/ada.png", "email": "ada@example.com"]))
                let answer = try await provider.signIn(token)
                #expect(answer.status == 201, "\(answer.text)")
                let user = answer.json["user"] as? [String: Any]
                #expect(user?["user_id"] as? String == "ada")
                #expect(user?["display_name"] as? String == "Ada Lovelace" && user?["avatar_url"] as? String == "https://img.example/ada.png")
                #expect(jwks.requests("/.well-known/openid-configuration") == 1)

                let again = try await provider.signIn(token)
                #expect(again.status == 422 && again.data["reason"] as? String == "eit_token_replayed", "\(again.text)")
                // With a jti, the token is one use however it is re-encoded (here with another
                // header, so other bytes and another signature).
                let first = try provider.idToken(key, claims: provider.claims(extra: ["jti": "j-1"]))
                let reencoded = try provider.idToken(
                    key, claims: provider.claims(extra: ["jti": "j-1"]), header: ["alg": "RS256", "kid": key.kid, "typ": "jwt"])
                #expect(first != reencoded)
                #expect(try await provider.signIn(first).status == 201)
                #expect(try await provider.signIn(reencoded).data["reason"] as? String == "eit_token_replayed")
                // The validation tool sees the use without making one.
                let validated = try await server.post(
                    "/admin/tools/validate-identity-token", ["identity_token": token, "app_id": provider.appID], admin: true)
                let reasons = (validated.json["reasons"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
                #expect(reasons == ["eit_token_replayed"] && validated.json["profile"] as? String == "id_token", "\(validated.text)")
            }
        }
    }

    @Test("the rules of an ID token, each refused with its reason")
    func rules() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let key = try PublishedKey.rsa("idp-1", index: 0)
                jwks.publish([key])
                let provider = try await Provider.make(server, jwks)
                let now = server.clock.now
                let cases: [(String, String, String?, String)] = [
                    ("aud another client", try provider.idToken(key, claims: provider.claims(extra: ["aud": "someone-else"])), "aud", "eit_claim_wrong_value"),
                    ("aud missing", try provider.idToken(key, claims: provider.claims().filter { $0.key != "aud" }), "aud", "eit_claim_not_found"),
                    ("aud a number", try provider.idToken(key, claims: provider.claims(extra: ["aud": 7])), "aud", "eit_claim_wrong_type"),
                    (
                        "azp another client", try provider.idToken(key, claims: provider.claims(extra: ["aud": ["client-1", "x"], "azp": "x"])), "azp",
                        "eit_claim_wrong_value"
                    ),
                    ("lives two hours", try provider.idToken(key, claims: provider.claims(ttl: 7_200)), "exp", "eit_ttl_too_long"),
                    ("expired", try provider.idToken(key, claims: provider.claims(extra: ["iat": now - 600, "exp": now - 120])), "exp", "eit_expired"),
                    ("nbf ahead", try provider.idToken(key, claims: provider.claims(extra: ["nbf": now + 600])), "nbf", "eit_not_before"),
                    ("sub missing", try provider.idToken(key, claims: provider.claims().filter { $0.key != "sub" }), "sub", "eit_claim_not_found"),
                    ("alg none", try provider.idToken(key, header: ["alg": "none", "kid": "idp-1"]), nil, "eit_header_param_wrong_value"),
                    (
                        "alg ES256 for an RS256 provider", try provider.idToken(key, header: ["alg": "ES256", "kid": "idp-1"]), nil,
                        "eit_header_param_wrong_value"
                    ),
                    ("no kid", try provider.idToken(key, header: ["alg": "RS256"]), nil, "eit_header_param_not_found"),
                    ("unknown kid", try provider.idToken(key, header: ["alg": "RS256", "kid": "nope"]), nil, "eit_key_not_found"),
                    (
                        "another key", try PublishedKey.rsa("idp-1", index: 2).sign(header: ["alg": "RS256", "kid": "idp-1"], claims: provider.claims()), nil,
                        "eit_signature_verification_failed"
                    ),
                    ("unknown issuer", try provider.idToken(key, claims: provider.claims(extra: ["iss": provider.issuer + "/"])), nil, "eit_key_not_found"),
                ]
                for (name, token, claim, reason) in cases {
                    let answer = try await provider.signIn(token)
                    #expect(answer.status == 422 && answer.data["reason"] as? String == reason, "\(name): \(answer.text)")
                    if let claim { #expect(answer.data["claim"] as? String == claim, "\(name): \(answer.text)") }
                }
                // Suspension (#23) ranks before a too long life (#24).
                _ = try await server.request(.PATCH, "/admin/apps/\(Fixture.bare(provider.appID))/users/ada", body: #"{"suspended": true}"#, admin: true)
                let suspended = try await provider.signIn(try provider.idToken(key, claims: provider.claims(ttl: 7_200)))
                #expect(suspended.data["reason"] as? String == "eit_user_suspended", "\(suspended.text)")
            }
        }
    }

    @Test("an unbound, a non-federated and an ES256 provider; a discovery document naming another issuer")
    func providers() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let ec = PublishedKey.p256("ec-1")
                jwks.publish([ec])
                let provider = try await Provider.make(server, jwks, algorithm: "ES256")
                let token = try provider.idToken(ec)
                #expect(try await provider.signIn(token).status == 201)
                // The same token with its ECDSA signature rewritten as (r, n − s), as valid as the
                // original: still the same use.
                let malleated = Self.withMalleatedSignature(token)
                #expect(malleated != token)
                let again = try await provider.signIn(malleated)
                #expect(again.data["reason"] as? String == "eit_token_replayed", "\(again.text)")
                let rsaToken = try PublishedKey.rsa("ec-1", index: 0).sign(header: ["alg": "RS256", "kid": "ec-1"], claims: provider.claims())
                #expect(try await provider.signIn(rsaToken).data["reason"] as? String == "eit_header_param_wrong_value")

                let other = try await server.post("/admin/apps", ["name": "Other"], admin: true).json["id"] as? String ?? ""
                let elsewhere = try await server.post("/sessions", ["identity_token": try provider.idToken(ec), "app_id": other])
                #expect(elsewhere.data["reason"] as? String == "eit_provider_not_bound_to_app", "\(elsewhere.text)")

                _ = try await server.request(.PATCH, "/admin/providers/\(Fixture.bare(provider.providerID))", body: #"{"federated": false}"#, admin: true)
                #expect(try await provider.signIn(try provider.idToken(ec)).data["reason"] as? String == "eit_key_not_found")
            }
        }
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let key = try PublishedKey.rsa("idp-1", index: 0)
                jwks.publish([key])
                jwks.setDiscoveryIssuer("https://impostor.example")
                let provider = try await Provider.make(server, jwks)
                let answer = try await provider.signIn(try provider.idToken(key))
                #expect(answer.data["reason"] as? String == "eit_key_not_found")
                let status = try await server.request(.GET, "/admin/providers/\(Fixture.bare(provider.providerID))/key-source", admin: true).json
                #expect((status["last_error"] as? String)?.contains("another issuer") == true, "\(status)")
                #expect(jwks.requests("/jwks.json") == 0)
            }
        }
    }

    @Test("a provider switched from RS256 to ES256 verifies nothing with the RSA keys it fetched before, whatever a token's alg says")
    func algorithmSwitch() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let rsa = try PublishedKey.rsa("idp-1", index: 0)
                jwks.publish([rsa])
                let provider = try await Provider.make(server, jwks)
                #expect(try await provider.signIn(try provider.idToken(rsa)).status == 201)
                let patched = try await server.request(
                    .PATCH, "/admin/providers/\(Fixture.bare(provider.providerID))", body: #"{"algorithm": "ES256"}"#, admin: true)
                #expect(patched.status == 200, "\(patched.text)")
                // An RS256 signature under a header that claims ES256, with the key kept from before.
                let claimsES256 = try rsa.sign(header: ["alg": "ES256", "kid": "idp-1"], claims: provider.claims(subject: "eve"))
                let answer = try await provider.signIn(claimsES256)
                #expect(answer.status == 422 && answer.data["reason"] as? String == "eit_key_not_found", "\(answer.text)")
            }
        }
    }

    /// An ES256 token whose signature `r || s` is replaced by `r || n − s` (P-256's order n).
    static func withMalleatedSignature(_ token: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let signature = Base64URL.decodeCanonical(parts[2]) ?? []
        let order: [UInt8] = Array(
            Data(base64Encoded: "/////wAAAAD//////////7zm+q2nF56E87nKwvxjJVE=")!)
        var difference = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var value = Int(order[index]) - Int(signature[32 + index]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            difference[index] = UInt8(value)
        }
        return parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(signature[0..<32]) + difference)
    }

    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let ttl: Int64
        var testDescription: String { name }
    }

    @Test(
        "ID tokens minted by PyJWT in the shapes Firebase, Auth0 and Clerk publish sign in, once",
        .enabled(if: PyJWTMinter.available || PyJWTMinter.required, "python3 with PyJWT not available"),
        arguments: [Shape(name: "firebase", ttl: 3_600), Shape(name: "auth0", ttl: 3_600), Shape(name: "clerk", ttl: 60)])
    func interop(shape: Shape) async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let key = try PublishedKey.rsa("kid-\(shape.name)", index: 3)
                jwks.publish([key])
                let provider = try await Provider.make(server, jwks)
                let token = try await PyJWTMinter.mintIDToken(
                    shape: shape.name, key: key, issuer: provider.issuer, audience: provider.clientID, subject: "user-\(shape.name)",
                    now: server.clock.now, ttl: shape.ttl)
                let answer = try await provider.signIn(token)
                #expect(answer.status == 201, "\(answer.text)")
                #expect((answer.json["user"] as? [String: Any])?["user_id"] as? String == "user-\(shape.name)")
                #expect(try await provider.signIn(token).data["reason"] as? String == "eit_token_replayed")
            }
        }
    }
}

extension PyJWTMinter {
    static let idTokenScript = packageRoot.appendingPathComponent("scripts/mint_id_token.py")

    static func mintIDToken(
        shape: String, key: PublishedKey, issuer: String, audience: String, subject: String, now: Int64, ttl: Int64
    ) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pyjwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("provider.pem")
        try Data(key.privatePEM.utf8).write(to: keyFile)
        let ran = try await ChildProcess.run(
            executable: "/usr/bin/env",
            arguments: [
                "python3", idTokenScript.path, "--shape=\(shape)", "--private-key=\(keyFile.path)", "--kid=\(key.kid)",
                "--issuer=\(issuer)", "--audience=\(audience)", "--subject=\(subject)", "--iat=\(now)", "--ttl=\(ttl)",
            ])
        let token = ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard ran.termination == .exited(0), !token.isEmpty else {
            throw Failed(description: "PyJWT minting failed (\(ran.termination)): \(ran.stderr)")
        }
        return token
    }
}
