import Foundation
import Testing
import VouchProtocol
import VouchTokens
import _CryptoExtras

@Suite("Admin API (PROTOCOL §4) over real HTTP")
struct AdminAPITests {
    @Test("every admin route refuses a missing or wrong admin token with 403 access_denied")
    func adminTokenRequired() async throws {
        try await LiveServer.run { server in
            let id = UUID().uuidString.lowercased()
            let routes: [(HTTPMethodName, String)] = [
                (.POST, "/admin/apps"), (.GET, "/admin/apps"), (.GET, "/admin/apps/\(id)"), (.PATCH, "/admin/apps/\(id)"),
                (.POST, "/admin/providers"), (.PUT, "/admin/providers/\(id)/apps/\(id)"), (.DELETE, "/admin/providers/\(id)/apps/\(id)"),
                (.POST, "/admin/providers/\(id)/keys"), (.GET, "/admin/providers/\(id)/keys"), (.PATCH, "/admin/keys/\(id)"),
                (.DELETE, "/admin/keys/\(id)"), (.POST, "/admin/apps/\(id)/registration-secrets"),
                (.GET, "/admin/apps/\(id)/users/u"), (.PATCH, "/admin/apps/\(id)/users/u"),
                (.DELETE, "/admin/apps/\(id)/users/u/sessions"), (.POST, "/admin/tools/validate-identity-token"),
            ]
            for (method, path) in routes {
                for headers in [[:], ["Authorization": "Bearer wrong"], ["Authorization": LiveServer.adminToken]] {
                    let answer = try await server.request(.init(rawValue: method.rawValue), path, body: "{}", headers: headers)
                    #expect(answer.status == 403, "\(method) \(path) \(headers)")
                    #expect(answer.json["id"] as? String == "access_denied")
                    #expect(answer.json["code"] as? Int == 101)
                }
            }
        }
    }

    @Test("apps: create, list, show, update, with bounds")
    func apps() async throws {
        try await LiveServer.run { server in
            let created = try await server.post("/admin/apps", ["name": "Chat", "session_ttl_seconds": 3600], admin: true)
            #expect(created.status == 201)
            let app = try created.decode(AppResponse.self)
            #expect(app.id.hasPrefix("layer:///apps/"))
            #expect(app.sessionTTLSeconds == 3600)
            #expect(Timestamp.parse(app.createdAt) == server.clock.now)
            let uuid = Fixture.bare(app.id)
            #expect(uuid == uuid.lowercased())

            #expect(try await server.post("/admin/apps", ["name": "Default"], admin: true).json["session_ttl_seconds"] as? Int == 2_592_000)
            let list = try await server.request(.GET, "/admin/apps", admin: true)
            #expect(list.jsonArray.map { $0["name"] as? String } == ["Chat", "Default"])
            #expect(try await server.request(.GET, "/admin/apps/\(uuid.uppercased())", admin: true).json["name"] as? String == "Chat")

            let patched = try await server.request(.PATCH, "/admin/apps/\(uuid)", body: #"{"name":"Talk"}"#, admin: true)
            #expect(patched.json["name"] as? String == "Talk")
            #expect(patched.json["session_ttl_seconds"] as? Int == 3600)

            for ttl in [29, 31_536_001, -1] {
                let answer = try await server.post("/admin/apps", ["name": "x", "session_ttl_seconds": ttl], admin: true)
                #expect(answer.status == 422)
                #expect(answer.data["property"] as? String == "session_ttl_seconds")
            }
            for ttl in [30, 31_536_000] {
                #expect(try await server.post("/admin/apps", ["name": "x", "session_ttl_seconds": ttl], admin: true).status == 201)
            }
            #expect(try await server.post("/admin/apps", [:], admin: true).data["property"] as? String == "name")
            #expect(try await server.post("/admin/apps", ["name": ""], admin: true).status == 422)
            #expect(try await server.post("/admin/apps", ["name": String(repeating: "n", count: 129)], admin: true).status == 422)
            #expect(try await server.request(.GET, "/admin/apps/\(UUID())", admin: true).status == 404)
            #expect(try await server.request(.GET, "/admin/apps/not-a-uuid", admin: true).json["id"] as? String == "not_found")
        }
    }

    @Test("providers and bindings")
    func providers() async throws {
        try await LiveServer.run { server in
            let app = try await server.post("/admin/apps", ["name": "Chat"], admin: true).json["id"] as? String ?? ""
            let provider = try await server.post("/admin/providers", ["name": "Backend"], admin: true)
            #expect(provider.status == 201)
            #expect(provider.json["app_ids"] as? [String] == [])
            let providerID = Fixture.bare(provider.json["id"] as? String ?? "")
            let bindPath = "/admin/providers/\(providerID)/apps/\(Fixture.bare(app))"
            #expect(try await server.request(.PUT, bindPath, admin: true).status == 204)
            #expect(try await server.request(.PUT, bindPath, admin: true).status == 204, "binding is idempotent")
            #expect(try await server.request(.GET, "/admin/providers/\(providerID)", admin: true).json["app_ids"] as? [String] == [app])
            #expect(try await server.request(.DELETE, bindPath, admin: true).status == 204)
            #expect(try await server.request(.GET, "/admin/providers/\(providerID)", admin: true).json["app_ids"] as? [String] == [])
            #expect(try await server.request(.PUT, "/admin/providers/\(providerID)/apps/\(UUID())", admin: true).status == 404)
            #expect(try await server.request(.PUT, "/admin/providers/\(UUID())/apps/\(Fixture.bare(app))", admin: true).status == 404)
        }
    }

    @Test("keys: upload, generate (private key shown once), list, disable, enable, delete as tombstone")
    func keys() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let provider = Fixture.bare(fixture.providerID)
            let pair = try RSAKeyPair.generate()
            let uploaded = try await server.post("/admin/providers/\(provider)/keys", ["public_key": pair.publicKeyPEM], admin: true)
            #expect(uploaded.status == 201)
            let key = try uploaded.decode(KeyResponse.self)
            #expect(key.status == .active)
            #expect(key.algorithm == "RS256")
            #expect(key.fingerprint == pair.fingerprint)
            #expect(key.privateKey == nil)
            #expect(key.providerID == fixture.providerID)

            let list = try await server.request(.GET, "/admin/providers/\(provider)/keys", admin: true)
            #expect(list.jsonArray.count == 4)
            #expect(!list.text.contains("PRIVATE"))
            let statuses = Dictionary(uniqueKeysWithValues: list.jsonArray.map { ($0["id"] as? String ?? "", $0["status"] as? String ?? "") })
            #expect(statuses[fixture.deletedKey.id] == "deleted")
            #expect(statuses[fixture.disabledKey.id] == "disabled")

            let keyPath = "/admin/keys/\(Fixture.bare(key.id))"
            #expect(try await server.request(.PATCH, keyPath, body: #"{"status":"disabled"}"#, admin: true).json["status"] as? String == "disabled")
            #expect(try await server.request(.PATCH, keyPath, body: #"{"status":"active"}"#, admin: true).json["status"] as? String == "active")
            #expect(try await server.request(.PATCH, keyPath, body: #"{"status":"deleted"}"#, admin: true).status == 422)
            #expect(try await server.request(.PATCH, keyPath, body: #"{"status":"bogus"}"#, admin: true).status == 422)
            #expect(try await server.request(.DELETE, keyPath, admin: true).status == 204)
            #expect(try await server.request(.DELETE, keyPath, admin: true).status == 204, "deleting again is harmless")
            #expect(try await server.request(.GET, keyPath, admin: true).json["status"] as? String == "deleted")
            #expect(try await server.request(.PATCH, keyPath, body: #"{"status":"active"}"#, admin: true).status == 409)

            // A token naming a re-enabled key works again; a disabled key is refused at once.
            let disabledPath = "/admin/keys/\(Fixture.bare(fixture.disabledKey.id))"
            #expect(try await server.request(.PATCH, disabledPath, body: #"{"status":"active"}"#, admin: true).status == 200)
            let token = try fixture.layerToken(
                header: fixture.layerHeader(kid: fixture.disabledKey.id),
                claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now),
                signedWith: fixture.disabledKey.privateKey)
            #expect(try await fixture.signIn(token).status == 201)
        }
    }

    @Test("key uploads are checked: garbage, private keys, small keys, both or neither field")
    func keyUploadValidation() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let path = "/admin/providers/\(Fixture.bare(fixture.providerID))/keys"
            let pair = try RSAKeyPair.generate()
            let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)).publicKey.pemRepresentation
            for body in [
                ["public_key": "garbage"], ["public_key": pair.privateKeyPEM], ["public_key": small],
                ["public_key": pair.publicKeyPEM, "generate": true] as [String: Any],
            ] {
                let answer = try await server.post(path, body, admin: true)
                #expect(answer.status == 422, "\(answer.text)")
                #expect(answer.json["id"] as? String == "invalid_property")
            }
            #expect(try await server.post(path, [:], admin: true).json["id"] as? String == "missing_property")
            #expect(try await server.post("/admin/providers/\(UUID())/keys", ["generate": true], admin: true).status == 404)
        }
    }

    /// The unit tests of `PublicKeyInfo` cover every rule; these check the answers over HTTP.
    @Test("key uploads: e = 65537 only, up to 8192 bits, one PEM block with nothing around it")
    func keyUploadShape() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let path = "/admin/providers/\(Fixture.bare(fixture.providerID))/keys"
            /// A public key made of its numbers: the rules are about n and e, not about primes.
            func publicKey(bits: Int, exponent: [UInt8] = [0x01, 0x00, 0x01]) throws -> _RSA.Signing.PublicKey {
                var modulus = (0..<bits / 8).map { _ in UInt8.random(in: 0...255) }
                modulus[0] |= 0x80
                modulus[modulus.count - 1] |= 0x01
                return try _RSA.Signing.PublicKey(n: modulus, e: exponent)
            }
            func upload(_ pem: String) async throws -> HTTPResult { try await server.post(path, ["public_key": pem], admin: true) }
            func expectRefused(_ pem: String, saying fragment: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let answer = try await upload(pem)
                #expect(answer.status == 422, "\(answer.text)", sourceLocation: sourceLocation)
                #expect(answer.json["id"] as? String == "invalid_property", sourceLocation: sourceLocation)
                #expect(answer.data["property"] as? String == "public_key", sourceLocation: sourceLocation)
                #expect((answer.json["message"] as? String)?.contains(fragment) == true, "\(answer.text)", sourceLocation: sourceLocation)
            }

            try await expectRefused(try publicKey(bits: 2048, exponent: [0x03]).pemRepresentation, saying: "65537")
            try await expectRefused(try publicKey(bits: 3072, exponent: [0x01, 0x00, 0x00, 0x01]).pemRepresentation, saying: "65537")
            let pem = try publicKey(bits: 2048).pemRepresentation
            try await expectRefused("Here is my key:\n" + pem, saying: "exactly one PEM block")
            try await expectRefused(pem + "\n-- sent from my phone", saying: "exactly one PEM block")
            try await expectRefused(pem + "\n" + (try publicKey(bits: 2048).pemRepresentation), saying: "exactly one PEM block")

            #expect(try await upload("\n  " + pem + "\n\n").status == 201, "whitespace around the block is fine")
            #expect(try await upload(try publicKey(bits: 8192).pemRepresentation).status == 201)
            #expect(try await upload(try publicKey(bits: 4096).pkcs1PEMRepresentation).status == 201, "PKCS#1 spelling")
        }
    }

    @Test("registration secrets: 32 random bytes, shown once, usable at once")
    func registrationSecrets() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            #expect(LayerID.parseUUID(fixture.registration.key) != nil)
            #expect(Data(base64Encoded: fixture.registration.secret)?.count == 32)
            #expect(fixture.registration.secret != fixture.otherRegistration.secret)
            #expect(try await server.request(.POST, "/admin/apps/\(UUID())/registration-secrets", admin: true).status == 404)
        }
    }

    @Test("users: status, suspension takes effect on the next request, revocation, percent-encoded ids")
    func users() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let first = try await fixture.signedInSession(user: "eve/ü")
            let second = try await fixture.signedInSession(user: "eve/ü")
            let path = "/admin/apps/\(app)/users/eve%2F%C3%BC"
            let status = try await server.request(.GET, path, admin: true)
            #expect(status.status == 200)
            #expect(status.json["active_sessions"] as? Int == 2)
            #expect(status.json["suspended"] as? Bool == false)
            #expect((status.json["user"] as? [String: Any])?["user_id"] as? String == "eve/ü")

            #expect(try await server.request(.DELETE, "\(path)/sessions", admin: true).status == 204)
            for session in [first, second] {
                let answer = try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(session)"])
                #expect(answer.data["reason"] as? String == "session_revoked")
            }
            #expect(try await server.request(.GET, path, admin: true).json["active_sessions"] as? Int == 0)

            let third = try await fixture.signedInSession(user: "eve/ü")
            let suspended = try await server.request(.PATCH, path, body: #"{"suspended":true}"#, admin: true)
            #expect(suspended.json["suspended"] as? Bool == true)
            #expect(suspended.json["active_sessions"] as? Int == 0)
            let answer = try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(third)"])
            #expect(answer.data["reason"] as? String == "user_suspended")

            #expect(try await server.request(.GET, "/admin/apps/\(app)/users/nobody", admin: true).status == 404)
            #expect(try await server.request(.PATCH, path, body: "{}", admin: true).data["property"] as? String == "suspended")
        }
    }

    @Test("the validation tool lists every problem, first the sign-in's, and never consumes the nonce")
    func validationTool() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let now = server.clock.now
            let nonce = try await server.nonce()
            let good = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: now))
            for _ in 0..<2 {
                let answer = try await server.post("/admin/tools/validate-identity-token", ["identity_token": good, "app_id": fixture.appID], admin: true)
                #expect(answer.status == 200)
                #expect(answer.json["valid"] as? Bool == true)
                #expect((answer.json["reasons"] as? [Any])?.isEmpty == true)
                #expect((answer.json["claims"] as? [String: Any])?["prn"] as? String == "alice")
                #expect((answer.json["header"] as? [String: Any])?["kid"] as? String == fixture.activeKey.id)
            }
            #expect(try await fixture.signIn(good).status == 201, "validating did not consume the nonce")

            var claims = fixture.layerClaims(nonce: "never-issued", now: now)
            claims["iat"] = now - 1000
            claims["exp"] = now - 500
            claims["prn"] = ""
            let bad = try fixture.layerToken(claims: claims)
            let answer = try await server.post("/admin/tools/validate-identity-token", ["identity_token": bad, "app_id": fixture.appID], admin: true)
            #expect(answer.json["valid"] as? Bool == false)
            let reasons = (answer.json["reasons"] as? [[String: Any]] ?? []).compactMap { $0["reason"] as? String }
            #expect(reasons == ["eit_claim_wrong_value", "eit_expired", "eit_nonce_not_found"])
            #expect(try await fixture.signIn(bad).data["reason"] as? String == reasons.first)

            let garbage = try await server.post("/admin/tools/validate-identity-token", ["identity_token": "x.y", "app_id": fixture.appID], admin: true)
            #expect((garbage.json["reasons"] as? [[String: Any]])?.first?["reason"] as? String == "eit_wrong_jws_part_count")
            #expect(try await server.post("/admin/tools/validate-identity-token", ["identity_token": good, "app_id": "\(UUID())"], admin: true).status == 403)
        }
    }

    @Test("the validation tool echoes number literals exactly as the token wrote them")
    func validationToolEchoesLiterals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let now = server.clock.now
            let nonce = try await server.nonce()
            // Written by hand: a JSON library would normalise the very literals under test.
            let claims =
                #"{"iss":"\#(fixture.providerID)","prn":"alice","iat":\#(now).0,"exp":\#(now + 60)e0,"#
                + #""nce":"\#(nonce)","n":[1.50,-0,12345678901234567890123]}"#
            let token = try Fixture.sign(
                headerJSON: Fixture.json(fixture.layerHeader()), claimsJSON: claims,
                with: fixture.activeKey.privateKey)
            let answer = try await server.post(
                "/admin/tools/validate-identity-token",
                ["identity_token": token, "app_id": fixture.appID], admin: true)
            #expect(answer.status == 200)
            let reasons = (answer.json["reasons"] as? [[String: Any]] ?? [])
            #expect(reasons.first?["reason"] as? String == "eit_claim_wrong_type")
            #expect(reasons.first?["claim"] as? String == "iat")
            #expect(answer.text.contains(#""iat":\#(now).0"#), "\(answer.text)")
            #expect(answer.text.contains(#""exp":\#(now + 60)e0"#), "\(answer.text)")
            #expect(answer.text.contains(#""n":[1.50,-0,12345678901234567890123]"#), "\(answer.text)")
            #expect(answer.header("Content-Type") == "application/json; charset=utf-8")
        }
    }
}

/// HTTP methods by name, so route tables in tests read like the protocol.
enum HTTPMethodName: String {
    case GET, POST, PUT, PATCH, DELETE
}
