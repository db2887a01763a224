import Foundation
import VouchKeySourceTestSupport
import Testing
import VouchProtocol
import VouchTokens
import _CryptoExtras

/// Every reason of PROTOCOL §5.4, produced through a real `POST /sessions`, with the exact
/// 422 body of §3.
@Suite("POST /sessions refuses with every reason of §5.4")
struct SignInReasonTests {
    @Test("each reason, with its fixed message and data")
    func everyReason() async throws {
        try await JWKSServer.run { jwks in try await everyReason(jwks) }
    }

    private func everyReason(_ jwks: JWKSServer) async throws {
        try await LiveServer.run(configure: KeySourceTests.loopback) { server in
            let fixture = try await Fixture.make(server)
            let now = server.clock.now
            var produced = Set<RejectionReason>()

            func expect(
                _ reason: RejectionReason, _ token: String, app: String? = nil,
                sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let answer = try await fixture.signIn(token, app: app)
                #expect(answer.status == 422, "\(reason): status \(answer.status) \(answer.text)", sourceLocation: sourceLocation)
                #expect(answer.json["id"] as? String == "invalid_property", sourceLocation: sourceLocation)
                #expect(answer.json["code"] as? Int == 105, sourceLocation: sourceLocation)
                #expect(answer.json["message"] as? String == reason.message, "\(reason)", sourceLocation: sourceLocation)
                #expect(answer.data["property"] as? String == "identity_token", sourceLocation: sourceLocation)
                #expect(
                    answer.data["reason"] as? String == reason.rawValue, "expected \(reason.rawValue), got \(answer.text)",
                    sourceLocation: sourceLocation)
                let serverTime = try #require(answer.data["server_time"] as? Int, sourceLocation: sourceLocation)
                #expect(Int64(serverTime) == server.clock.now, sourceLocation: sourceLocation)
                if answer.data["reason"] as? String == reason.rawValue { produced.insert(reason) }
            }
            func claims(_ changes: [String: Any?] = [:], nonce: String = "n") -> [String: Any] {
                var claims = fixture.layerClaims(nonce: nonce, now: now)
                for (name, value) in changes { claims[name] = value }
                return claims
            }
            func header(_ changes: [String: Any?]) -> [String: Any] {
                var header = fixture.layerHeader()
                for (name, value) in changes { header[name] = value }
                return header
            }
            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)

            try await expect(.tokenTooLarge, String(repeating: "a", count: 8 * 1024 + 1))
            try await expect(.wrongJWSPartCount, "a.b")
            try await expect(.malformedBase64URL, "eyJ9=.e30.")
            try await expect(.malformedJSON, Base64URL.encode(Array("not json".utf8)) + ".e30.")
            try await expect(.headerParamNotFound, try fixture.layerToken(header: header(["typ": nil]), claims: claims()))
            try await expect(.headerParamWrongType, try fixture.layerToken(header: header(["typ": 1]), claims: claims()))
            try await expect(.headerParamWrongValue, try fixture.layerToken(header: header(["alg": "HS256"]), claims: claims()))
            try await expect(.keyMalformed, try fixture.layerToken(header: header(["kid": "layer:///keys/zzz"]), claims: claims()))
            try await expect(.keyNotFound, try fixture.layerToken(header: header(["kid": "layer:///keys/\(UUID())"]), claims: claims()))
            try await expect(
                .keyDeleted,
                try fixture.layerToken(
                    header: header(["kid": fixture.deletedKey.id]), claims: claims(),
                    signedWith: fixture.deletedKey.privateKey))
            try await expect(
                .keyDisabled,
                try fixture.layerToken(
                    header: header(["kid": fixture.disabledKey.id]), claims: claims(),
                    signedWith: fixture.disabledKey.privateKey))
            try await expect(.signatureVerificationFailed, try fixture.layerToken(claims: claims(), signedWith: stranger))
            try await expect(.claimNotFound, try fixture.layerToken(claims: claims(["nce": nil])))
            try await expect(.claimWrongType, try fixture.layerToken(claims: claims(["iat": "\(now)"])))
            try await expect(.claimWrongValue, try fixture.layerToken(claims: claims(["prn": ""])))
            try await expect(.providerNotFound, try fixture.layerToken(claims: claims(["iss": "layer:///providers/\(UUID())"])))
            try await expect(
                .providerNotBoundToApp,
                try fixture.layerToken(
                    header: header(["kid": fixture.unboundKey.id]), claims: claims(["iss": fixture.unboundProviderID]),
                    signedWith: fixture.unboundKey.privateKey))
            try await expect(.expired, try fixture.layerToken(claims: claims(["iat": now - 1000, "exp": now - 500])))
            try await expect(.notBefore, try fixture.layerToken(claims: claims(["iat": now + 1000, "exp": now + 1200])))
            try await expect(.ttlTooShort, try fixture.sinchToken(claims: fixture.sinchClaims(now: now, ttl: 30), issuedAt: now))
            try await expect(.nonceNotFound, try fixture.layerToken(claims: claims(nonce: "never-issued")))

            let replayNonce = UUID().uuidString
            let first = try fixture.sinchToken(claims: fixture.sinchClaims(nonce: replayNonce, now: now), issuedAt: now)
            #expect(try await fixture.signIn(first).status == 201)
            let second = try fixture.sinchToken(claims: fixture.sinchClaims(nonce: replayNonce, now: now + 1), issuedAt: now)
            try await expect(.nonceReplayed, second)

            let suspend = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))/users/mallory",
                body: #"{"suspended":true}"#, admin: true)
            #expect(suspend.status == 200)
            try await expect(
                .userSuspended,
                try fixture.layerToken(
                    claims: claims(["prn": "mallory"], nonce: try await server.nonce())))

            // The ID-token reasons (§8.18), from a federated provider's key source on 127.0.0.1.
            let identityKey = try PublishedKey.rsa("idp", index: 0)
            jwks.publish([identityKey])
            let federated = try await server.post(
                "/admin/providers", ["name": "IdP", "issuer": jwks.baseURL, "client_id": "c", "federated": true], admin: true)
            let federatedID = Fixture.bare(federated.json["id"] as? String ?? "")
            _ = try await server.request(.PUT, "/admin/providers/\(federatedID)/apps/\(Fixture.bare(fixture.appID))", admin: true)
            func idToken(lifetime: Int64) throws -> String {
                try identityKey.sign(
                    header: ["alg": "RS256", "kid": "idp"],
                    claims: ["iss": jwks.baseURL, "sub": "ada", "aud": "c", "iat": now, "exp": now + lifetime])
            }
            try await expect(.ttlTooLong, try idToken(lifetime: 7_200))
            let once = try idToken(lifetime: 600)
            #expect(try await fixture.signIn(once).status == 201)
            try await expect(.tokenReplayed, once)

            #expect(produced == Set(RejectionReason.allCases), "missing: \(Set(RejectionReason.allCases).subtracting(produced))")
        }
    }

    @Test("a token breaking two rules is refused with the earlier one")
    func precedence() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let now = server.clock.now
            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            var expired = fixture.layerClaims(nonce: try await server.nonce(), now: now)
            expired["iat"] = now - 1000
            expired["exp"] = now - 500
            let badSignatureAndExpired = try fixture.layerToken(claims: expired, signedWith: stranger)
            #expect(try await fixture.signIn(badSignatureAndExpired).data["reason"] as? String == "eit_signature_verification_failed")

            var header = fixture.layerHeader(kid: "layer:///keys/\(UUID())")
            header["alg"] = "HS256"
            let wrongAlgUnknownKid = try fixture.layerToken(header: header, claims: fixture.layerClaims(nonce: "x", now: now))
            #expect(try await fixture.signIn(wrongAlgUnknownKid).data["reason"] as? String == "eit_header_param_wrong_value")
            #expect(try await fixture.signIn(wrongAlgUnknownKid).data["param"] as? String == "alg")
        }
    }

    /// A sign-in leaves the nonce's use and the user's suspension to its session's transaction
    /// (they are the last rules, #21–#23); the ranking must come out as if the verifier had read them.
    @Test("a used nonce ranks after the earlier rules and before a suspension")
    func rulesDecidedInTheTransaction() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let now = server.clock.now
            let nonce = try await server.nonce()
            var claims = fixture.layerClaims(nonce: nonce, now: now)
            claims["prn"] = "eve"
            let token = try fixture.layerToken(claims: claims)
            #expect(try await fixture.signIn(token).status == 201)

            // Used, and expired: #18 outranks #21.
            var expired = claims
            expired["iat"] = now - 1000
            expired["exp"] = now - 500
            #expect(try await fixture.signIn(try fixture.layerToken(claims: expired)).data["reason"] as? String == "eit_expired")

            // Used, and the user suspended since: #21 outranks #23.
            let suspend = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))/users/eve",
                body: #"{"suspended":true}"#, admin: true)
            #expect(suspend.status == 200)
            let replay = try await fixture.signIn(token)
            #expect(replay.status == 422)
            #expect(replay.data["reason"] as? String == "eit_nonce_not_found", "\(replay.text)")
            #expect(replay.data["claim"] as? String == "nce")

            // A fresh nonce: #23, and the nonce is not spent by the refusal.
            claims["nce"] = try await server.nonce()
            let suspended = try fixture.layerToken(claims: claims)
            let refused = try await fixture.signIn(suspended)
            #expect(refused.data["reason"] as? String == "eit_user_suspended", "\(refused.text)")
            #expect(refused.data["claim"] as? String == "prn")
            let unsuspend = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))/users/eve",
                body: #"{"suspended":false}"#, admin: true)
            #expect(unsuspend.status == 200)
            #expect(try await fixture.signIn(suspended).status == 201, "the refused sign-in left its nonce unused")
        }
    }

    @Test("an unknown or malformed app_id is 403 invalid_app_id; a missing field is 422 missing_property")
    func appAndFields() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now))
            for app in ["layer:///apps/\(UUID())", "not-a-uuid", ""] {
                let answer = try await fixture.signIn(token, app: app)
                #expect(answer.status == 403)
                #expect(answer.json["id"] as? String == "invalid_app_id")
                #expect(answer.json["code"] as? Int == 2)
            }
            let bare = try await fixture.signIn(token, app: Fixture.bare(fixture.appID).uppercased())
            #expect(bare.status == 201, "a bare upper-case UUID is accepted: \(bare.text)")

            let missingToken = try await server.post("/sessions", ["app_id": fixture.appID])
            #expect(missingToken.status == 422)
            #expect(missingToken.json["id"] as? String == "missing_property")
            #expect(missingToken.data["property"] as? String == "identity_token")
            let missingApp = try await server.post("/sessions", ["identity_token": token])
            #expect(missingApp.data["property"] as? String == "app_id")
        }
    }
}
