import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTestSupport

/// Service credentials and `POST /introspect` over real HTTP (PROTOCOL §8.16, RFC 7662).
@Suite("Introspection: a service asks whether a token is live, and hears only yes with facts or no")
struct IntrospectionTests {
    static func credential(_ server: LiveServer, app: String, name: String = "chat server") async throws -> (id: String, text: String) {
        let answer = try await server.post("/admin/apps/\(Fixture.bare(app))/service-credentials", ["name": name], admin: true)
        guard answer.status == 201, let id = answer.json["id"] as? String, let text = answer.json["credential"] as? String else {
            throw TestFailure("service credential answered \(answer.status): \(answer.text)")
        }
        return (id, text)
    }

    static func introspect(
        _ server: LiveServer, _ token: String, credential: String?, json: Bool = false
    ) async throws -> HTTPResult {
        let headers = credential.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        if json {
            return try await server.request(.POST, "/introspect", body: Fixture.json(["token": token]), headers: headers)
        }
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return try await server.request(
            .POST, "/introspect", body: "token=\(encoded)&token_type_hint=access_token", headers: headers,
            contentType: "application/x-www-form-urlencoded")
    }

    @Test("operators make, list and revoke service credentials; the credential is shown once")
    func credentials() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let made = try await Self.credential(server, app: fixture.appID)
            #expect(made.text.hasPrefix("vsc_") && made.text.count == 47)
            let listed = try await server.request(.GET, "/admin/apps/\(app)/service-credentials", admin: true)
            #expect(listed.status == 200)
            #expect(!listed.text.contains(made.text))
            let entries = try #require(listed.json["service_credentials"] as? [[String: Any]])
            #expect(entries.count == 1 && entries[0]["id"] as? String == made.id && entries[0]["name"] as? String == "chat server")
            #expect(entries[0]["revoked_at"] == nil)
            let other = try await server.request(.GET, "/admin/apps/\(Fixture.bare(fixture.otherAppID))/service-credentials", admin: true)
            #expect((other.json["service_credentials"] as? [Any])?.isEmpty == true)

            #expect(try await server.post("/admin/apps/\(app)/service-credentials", [:], admin: true).status == 422)
            #expect(try await server.post("/admin/apps/\(app)/service-credentials", ["name": ""], admin: true).status == 422)
            #expect(try await server.post("/admin/apps/\(UUID().uuidString)/service-credentials", ["name": "x"], admin: true).status == 404)
            #expect(try await server.post("/admin/apps/\(app)/service-credentials", ["name": "x"]).status == 403, "no admin token")

            let revoked = try await server.request(.DELETE, "/admin/apps/\(app)/service-credentials/\(made.id)", admin: true)
            #expect(revoked.status == 200)
            #expect(revoked.json["revoked_at"] is String)
            #expect(
                try await server.request(.DELETE, "/admin/apps/\(Fixture.bare(fixture.otherAppID))/service-credentials/\(made.id)", admin: true)
                    .status == 404, "another app's credential is not found")
            #expect(try await server.request(.DELETE, "/admin/apps/\(app)/service-credentials/\(UUID())", admin: true).status == 404)
        }
    }

    @Test("live session and access tokens are active with their facts, in the form body and in JSON")
    func active() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let service = try await Self.credential(server, app: fixture.appID)
            let signIn = try await DeviceAPITests.signIn(fixture, user: "alice")
            let access = try #require(
                try await AccessTokenTests.mint(server, session: signIn.token).json["access_token"] as? String)
            for json in [false, true] {
                let answer = try await Self.introspect(server, access, credential: service.text, json: json)
                #expect(answer.status == 200, "\(answer.text)")
                #expect(answer.json["active"] as? Bool == true)
                #expect(answer.json["token_type"] as? String == "access_token")
                #expect(answer.json["sub"] as? String == "alice")
                #expect(answer.json["sid"] as? String == signIn.id)
                #expect(answer.json["app"] as? String == Fixture.bare(fixture.appID))
                #expect(answer.json["aud"] as? String == Fixture.bare(fixture.appID))
                #expect(answer.json["exp"] as? Int64 == server.clock.now + 300)
                let session = try await Self.introspect(server, signIn.token, credential: service.text, json: json)
                #expect(session.json["active"] as? Bool == true)
                #expect(session.json["token_type"] as? String == "session_token")
                #expect(session.json["sid"] as? String == signIn.id)
                #expect(session.json["aud"] == nil)
            }
        }
    }

    @Test("every kind of failure answers exactly {\"active\":false}")
    func inactive() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let service = try await Self.credential(server, app: fixture.appID)
            let otherService = try await Self.credential(server, app: fixture.otherAppID)
            let app = Fixture.bare(fixture.appID)
            func access(_ session: String) async throws -> String {
                try #require(try await AccessTokenTests.mint(server, session: session).json["access_token"] as? String)
            }
            func expectInactive(_ token: String, _ what: String, credential: String? = nil) async throws {
                let answer = try await Self.introspect(server, token, credential: credential ?? service.text)
                #expect(answer.status == 200, "\(what): \(answer.text)")
                #expect(answer.text == #"{"active":false}"#, "\(what): \(answer.text)")
            }

            let live = try await fixture.signedInSession(user: "carol")
            let liveAccess = try await access(live)
            let parts = try AccessTokenTests.parts(liveAccess)
            let pieces = liveAccess.split(separator: ".").map(String.init)
            func encode(_ object: [String: Any]) -> String {
                Data(Fixture.json(object).utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            }
            var otherClaims = parts.claims
            otherClaims["sub"] = "mallory"
            let forger = P256.Signing.PrivateKey()
            let forgedInput = pieces[0] + "." + encode(otherClaims)
            let forgedSignature = try forger.signature(for: Data(forgedInput.utf8)).rawRepresentation.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            var noneHeader = parts.header
            noneHeader["alg"] = "none"
            var hsHeader = parts.header
            hsHeader["alg"] = "HS256"
            try await expectInactive("x", "garbage")
            try await expectInactive("a.b.c", "three parts of nothing")
            try await expectInactive(pieces[0] + "." + encode(otherClaims) + "." + pieces[2], "claims changed under the signature")
            try await expectInactive(forgedInput + "." + forgedSignature, "signed by another key under Vouch's kid")
            try await expectInactive(encode(noneHeader) + "." + pieces[1] + ".", "alg none")
            try await expectInactive(encode(hsHeader) + "." + pieces[1] + "." + pieces[2], "alg HS256")
            try await expectInactive(liveAccess, "another app's service asking", credential: otherService.text)
            try await expectInactive(live, "another app's service asking about a session token", credential: otherService.text)
            try await expectInactive(String(repeating: "z", count: 60_000), "an oversized token")

            // Endings: revocation, sign-out, suspension, cutoff, expiry; each token answered no.
            let revoked = try await fixture.signedInSession(user: "dave")
            let revokedAccess = try await access(revoked)
            _ = try await server.request(.DELETE, "/sessions/\(revoked)")
            try await expectInactive(revoked, "revoked session")
            try await expectInactive(revokedAccess, "access token of a revoked session")

            let phone = try await DeviceAPITests.signIn(fixture, user: "erin")
            let laptop = try await DeviceAPITests.signIn(fixture, user: "erin")
            let phoneAccess = try await access(phone.token)
            _ = try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: AccessTokenTests.bearer(laptop.token))
            try await expectInactive(phoneAccess, "access token of a signed-out device")

            let suspended = try await fixture.signedInSession(user: "frank")
            let suspendedAccess = try await access(suspended)
            _ = try await server.request(.PATCH, "/admin/apps/\(app)/users/frank", body: #"{"suspended":true}"#, admin: true)
            try await expectInactive(suspendedAccess, "access token of a suspended user")
            try await expectInactive(suspended, "session of a suspended user")

            let cut = try await fixture.signedInSession(user: "grace")
            let cutAccess = try await access(cut)
            _ = try await server.post("/admin/providers/\(Fixture.bare(fixture.providerID))/cutoff", ["reason": "leak"], admin: true)
            try await expectInactive(cutAccess, "access token of a cut-off provider's session")

            let expiring = try await fixture.signedInSession(user: "heidi")
            let expiringAccess = try await access(expiring)
            server.clock.advance(by: 300 + 61)
            try await expectInactive(expiringAccess, "an expired access token of a live session")
            #expect(try await Self.introspect(server, expiring, credential: service.text).json["active"] as? Bool == true)
        }
    }

    @Test("no credential, a malformed, unknown or revoked one: 401 with the Bearer challenge; bad bodies are clear errors")
    func refusals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let service = try await Self.credential(server, app: fixture.appID)
            let session = try await fixture.signedInSession()
            for credential in [nil, "nonsense", "vsc_" + String(repeating: "A", count: 43), LiveServer.adminToken, session] {
                let answer = try await Self.introspect(server, session, credential: credential)
                #expect(answer.status == 401, "\(credential ?? "none"): \(answer.text)")
                #expect(answer.json["id"] as? String == "service_credential_required")
                #expect(answer.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            let missing = try await server.request(
                .POST, "/introspect", body: "token_type_hint=x", headers: ["Authorization": "Bearer \(service.text)"],
                contentType: "application/x-www-form-urlencoded")
            #expect(missing.status == 422 && missing.data["property"] as? String == "token", "\(missing.text)")
            let twice = try await server.request(
                .POST, "/introspect", body: "token=a&token=b", headers: ["Authorization": "Bearer \(service.text)"],
                contentType: "application/x-www-form-urlencoded")
            #expect(twice.status == 400, "\(twice.text)")
            let badEscape = try await server.request(
                .POST, "/introspect", body: "token=%zz", headers: ["Authorization": "Bearer \(service.text)"],
                contentType: "application/x-www-form-urlencoded")
            #expect(badEscape.status == 400, "\(badEscape.text)")
            let plain = try await server.request(
                .POST, "/introspect", body: "token", headers: ["Authorization": "Bearer \(service.text)"], contentType: "text/plain")
            #expect(plain.status == 400, "\(plain.text)")

            _ = try await server.request(
                .DELETE, "/admin/apps/\(Fixture.bare(fixture.appID))/service-credentials/\(service.id)", admin: true)
            server.clock.advance(by: 1)
            #expect(try await Self.introspect(server, session, credential: service.text).status == 401, "a revoked credential")
        }
    }
}
