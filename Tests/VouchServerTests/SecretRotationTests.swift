import Foundation
import Testing
import VouchProtocol

/// Registration secrets can be listed (never shown again) and retired, with a grace period so
/// backends can move to a new one; a revoked secret's tokens answer `eit_key_not_found`.
/// Re-uploading a key a provider already has is a conflict.
@Suite("Registration secret rotation and key uploads")
struct SecretRotationTests {
    @Test("list without secrets; revoke with a grace period, then for good; tokens follow")
    func rotation() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let second = try await server.request(.POST, "/admin/apps/\(app)/registration-secrets", admin: true)
            #expect(second.status == 201)
            let newKey = try #require(second.json["application_key"] as? String)
            let newSecret = try #require(second.json["application_secret"] as? String)

            let listed = try await server.request(.GET, "/admin/apps/\(app)/registration-secrets", admin: true)
            #expect(listed.status == 200)
            #expect(listed.jsonArray.map { $0["application_key"] as? String } == [fixture.registration.key, newKey])
            #expect(listed.jsonArray.allSatisfy { $0["status"] as? String == "active" && $0["application_secret"] == nil })
            // Every listed object carries `revoked_at` (PROTOCOL §4): `null` while the secret is active.
            #expect(listed.jsonArray.allSatisfy { $0.keys.contains("revoked_at") && $0["revoked_at"] is NSNull }, "\(listed.text)")
            #expect(!listed.text.contains(fixture.registration.secret) && !listed.text.contains(newSecret), "secrets are never shown again")

            func signIn(key: String, secret: String) async throws -> HTTPResult {
                let claims = fixture.sinchClaims(now: server.clock.now, applicationKey: key)
                return try await fixture.signIn(try fixture.sinchToken(claims: claims, secret: secret, issuedAt: server.clock.now))
            }
            #expect(try await signIn(key: fixture.registration.key, secret: fixture.registration.secret).status == 201)

            // Revoked with an hour's grace: both secrets still work.
            let retiring = try await server.request(
                .POST, "/admin/apps/\(app)/registration-secrets/\(fixture.registration.key)/revoke",
                body: #"{"grace_seconds": 3600}"#, admin: true)
            #expect(retiring.status == 200, "\(retiring.text)")
            #expect(retiring.json["status"] as? String == "retiring")
            #expect(retiring.json["revoked_at"] as? String == Timestamp.rfc3339(server.clock.now + 3600))
            #expect(try await signIn(key: fixture.registration.key, secret: fixture.registration.secret).status == 201)
            #expect(try await signIn(key: newKey, secret: newSecret).status == 201)

            // After the grace period the old one verifies nothing.
            server.clock.advance(by: 3600)
            let refused = try await signIn(key: fixture.registration.key, secret: fixture.registration.secret)
            #expect(refused.status == 422)
            #expect(refused.data["reason"] as? String == "eit_key_not_found", "\(refused.text)")
            #expect(try await signIn(key: newKey, secret: newSecret).status == 201)
            let statuses = try await server.request(.GET, "/admin/apps/\(app)/registration-secrets", admin: true)
                .jsonArray.map { $0["status"] as? String }
            #expect(statuses == ["revoked", "active"])

            // Without a body: at once.
            let now = try await server.request(.POST, "/admin/apps/\(app)/registration-secrets/\(newKey)/revoke", admin: true)
            #expect(now.json["status"] as? String == "revoked")
            #expect(try await signIn(key: newKey, secret: newSecret).data["reason"] as? String == "eit_key_not_found")
        }
    }

    @Test("revocation: unknown secrets, another app's secret and bad grace periods are refused")
    func revocationErrors() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let path = "/admin/apps/\(app)/registration-secrets/\(fixture.registration.key)/revoke"
            #expect(try await server.request(.POST, "/admin/apps/\(app)/registration-secrets/\(UUID())/revoke", admin: true).status == 404)
            #expect(
                try await server.request(
                    .POST, "/admin/apps/\(Fixture.bare(fixture.otherAppID))/registration-secrets/\(fixture.registration.key)/revoke",
                    admin: true
                ).status == 404, "a secret is revoked through its own app")
            for grace in ["-1", "2592001", "1.5", "\"60\""] {
                let answer = try await server.request(.POST, path, body: #"{"grace_seconds": \#(grace)}"#, admin: true)
                #expect(answer.status == 422, "\(grace): \(answer.text)")
                #expect(answer.data["property"] as? String == "grace_seconds")
            }
            #expect(try await server.request(.POST, path).status == 403, "admin only")
            let list = try await server.request(.GET, "/admin/apps/\(app)/registration-secrets", admin: true)
            #expect(list.jsonArray.first?["status"] as? String == "active", "nothing was revoked by the refused calls")
        }
    }

    @Test("DELETE …/registration-secrets/<key>, the contract's spelling: 204, with or without a grace period")
    func revocationByDelete() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let created = try await server.request(.POST, "/admin/apps/\(app)/registration-secrets", admin: true).json
            let newKey = try #require(created["application_key"] as? String)
            let newSecret = try #require(created["application_secret"] as? String)
            let signIn = { (key: String, secret: String) in
                try await fixture.signIn(
                    try fixture.sinchToken(
                        claims: fixture.sinchClaims(now: server.clock.now, applicationKey: key), secret: secret, issuedAt: server.clock.now))
            }

            let graced = try await server.request(
                .DELETE, "/admin/apps/\(app)/registration-secrets/\(fixture.registration.key)",
                body: #"{"grace_seconds": 60}"#, admin: true)
            #expect(graced.status == 204, "\(graced.text)")
            #expect(graced.body.isEmpty)
            #expect(try await signIn(fixture.registration.key, fixture.registration.secret).status == 201, "within the grace period")
            server.clock.advance(by: 60)
            #expect(try await signIn(fixture.registration.key, fixture.registration.secret).data["reason"] as? String == "eit_key_not_found")

            let now = try await server.request(.DELETE, "/admin/apps/\(app)/registration-secrets/\(newKey)", admin: true)
            #expect(now.status == 204)
            #expect(try await signIn(newKey, newSecret).data["reason"] as? String == "eit_key_not_found")
            #expect(try await server.request(.DELETE, "/admin/apps/\(app)/registration-secrets/\(UUID())", admin: true).status == 404)
            #expect(
                try await server.request(
                    .DELETE, "/admin/apps/\(app)/registration-secrets/\(newKey)",
                    body: #"{"grace_seconds": -5}"#, admin: true
                ).status == 422)
            let listed = try await server.request(.GET, "/admin/apps/\(app)/registration-secrets", admin: true).jsonArray
            #expect(listed.map { $0["status"] as? String } == ["revoked", "revoked"])
            #expect(listed.allSatisfy { $0["application_secret"] == nil && $0["revoked_at"] is String })
        }
    }

    @Test("re-uploading a key the provider already has is 409 conflict, even once deleted")
    func keyUploadedOnce() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let provider = Fixture.bare(fixture.providerID)
            let pem = fixture.activeKey.privateKey.publicKey.pemRepresentation
            let again = try await server.post("/admin/providers/\(provider)/keys", ["public_key": pem], admin: true)
            #expect(again.status == 409, "\(again.text)")
            #expect(again.json["id"] as? String == "conflict")
            #expect((again.data["fingerprint"] as? String)?.hasPrefix("sha256:") == true)

            let deletedPEM = fixture.deletedKey.privateKey.publicKey.pemRepresentation
            #expect(try await server.post("/admin/providers/\(provider)/keys", ["public_key": deletedPEM], admin: true).status == 409)
            // The same public key under another provider is that provider's business.
            let other = Fixture.bare(fixture.unboundProviderID)
            #expect(try await server.post("/admin/providers/\(other)/keys", ["public_key": pem], admin: true).status == 201)
        }
    }
}
