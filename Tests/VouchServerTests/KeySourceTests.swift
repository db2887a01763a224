import Foundation
import VouchKeySourceTestSupport
import Testing
import VouchProtocol
import VouchServer
import VouchStore
import VouchStoreConformance
import VouchTestSupport

/// PROTOCOL §8.18 over real HTTP: a provider's keys fetched from a JWKS served on 127.0.0.1
/// (`allowsLoopbackOutbound`, the test flag), with the server's clock in the test's hands.
@Suite("Provider keys from a JWKS URL", .serialized, .timeLimit(.minutes(5)))
struct KeySourceTests {
    /// An app, a provider with `source` as its key source, bound to the app.
    struct Setup: Sendable {
        let server: LiveServer
        let appID: String
        let providerID: String

        var bareProvider: String { Fixture.bare(providerID) }

        static func make(_ server: LiveServer, source: [String: Any]) async throws -> Setup {
            let app = try await server.post("/admin/apps", ["name": "Chat"], admin: true).json["id"] as? String ?? ""
            var body = source
            body["name"] = "Backend"
            let created = try await server.post("/admin/providers", body, admin: true)
            guard created.status == 201, let provider = created.json["id"] as? String else {
                throw TestFailure("provider creation answered \(created.status): \(created.text)")
            }
            let bind = try await server.request(.PUT, "/admin/providers/\(Fixture.bare(provider))/apps/\(Fixture.bare(app))", admin: true)
            guard bind.status == 204 else { throw TestFailure("bind answered \(bind.status)") }
            return Setup(server: server, appID: app, providerID: provider)
        }

        /// A Layer-profile token signed with `key`, naming it by its JWKS `kid`.
        func layerToken(_ key: PublishedKey, kid: String? = nil, user: String = "alice", issuer: String? = nil) async throws -> String {
            let now = server.clock.now
            return try key.sign(
                header: ["typ": "JWT", "alg": "RS256", "cty": "layer-eit;v=1", "kid": kid ?? key.kid],
                claims: ["iss": issuer ?? providerID, "prn": user, "iat": now, "exp": now + 120, "nce": try await server.nonce()])
        }

        func signIn(_ token: String) async throws -> HTTPResult {
            try await server.post("/sessions", ["identity_token": token, "app_id": appID])
        }

        func status() async throws -> [String: Any] {
            let answer = try await server.request(.GET, "/admin/providers/\(bareProvider)/key-source", admin: true)
            guard answer.status == 200 else { throw TestFailure("key-source answered \(answer.status): \(answer.text)") }
            return answer.json
        }
    }

    /// The test flag, and a fetch limit that a suite starting hundreds of servers at once cannot
    /// exceed (the 5 s bound itself is `unsafeSources`' to test).
    static func loopback(_ configuration: inout ServerConfiguration) {
        configuration.allowsLoopbackOutbound = true
        configuration.keySources.fetchTimeLimit = .seconds(60)
    }

    @Test("sign-ins that meet a new kid at once all wait for the one fetch it makes")
    func concurrentUnknownKeyLooks() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let old = try PublishedKey.rsa("old", index: 0)
                let new = try PublishedKey.rsa("new", index: 1)
                jwks.publish([old])
                let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url("/jwks.json")])
                #expect(try await setup.signIn(try await setup.layerToken(old)).status == 201)

                // Past the minute, the backend signs with a key published since; the fetch is slow
                // enough that every sign-in arrives while it is out.
                jwks.publish([old, new])
                server.clock.advance(by: 61)
                jwks.setMode(.slow(.milliseconds(800)))
                var tokens: [String] = []
                for index in 0..<4 { tokens.append(try await setup.layerToken(new, user: "user-\(index)")) }
                let answers = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
                    for token in tokens { group.addTask { try await setup.signIn(token) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for answer in answers { #expect(answer.status == 201, "\(answer.text)") }
                #expect(jwks.requests("/jwks.json") == 2, "one fetch for the new kid, shared by every sign-in")
            }
        }
    }

    @Test("rotation: a new kid is accepted within a minute, a removed one refused once its set is past the clamp; keys seen are listed with their sign-ins")
    func rotation() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let old = try PublishedKey.rsa("old", index: 0)
                let new = try PublishedKey.rsa("new", index: 1)
                jwks.publish([old])
                jwks.setCacheControl("public, max-age=86400")
                let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url("/jwks.json")])

                #expect(try await setup.signIn(try await setup.layerToken(old)).status == 201)
                #expect(try await setup.signIn(try await setup.layerToken(old, user: "bob")).status == 201)
                #expect(jwks.requests("/jwks.json") == 1, "one fetch serves every sign-in while the set is fresh")

                // The backend publishes a new key and signs with it at once: within the minute of
                // the last fetch the unknown kid is refused, after it the set is fetched again.
                jwks.publish([old, new])
                let early = try await setup.signIn(try await setup.layerToken(new))
                #expect(early.status == 422 && early.data["reason"] as? String == "eit_key_not_found", "\(early.text)")
                server.clock.advance(by: 61)
                #expect(try await setup.signIn(try await setup.layerToken(new)).status == 201)
                #expect(jwks.requests("/jwks.json") == 2)

                // The old key is withdrawn: it still verifies while the set is fresh (the clamp
                // holds a day's max-age to an hour), and is refused after.
                jwks.publish([new])
                #expect(try await setup.signIn(try await setup.layerToken(old)).status == 201)
                server.clock.advance(by: 3_600)
                let refused = try await setup.signIn(try await setup.layerToken(old))
                #expect(refused.status == 422 && refused.data["reason"] as? String == "eit_key_not_found", "\(refused.text)")
                #expect(try await setup.signIn(try await setup.layerToken(new)).status == 201)

                let status = try await setup.status()
                #expect(status["status"] as? String == "ok")
                #expect(status["jwks_url"] as? String == jwks.url("/jwks.json"))
                let keys = Dictionary(
                    uniqueKeysWithValues: (status["keys"] as? [[String: Any]] ?? []).map { ($0["kid"] as? String ?? "", $0) })
                #expect(keys["old"]?["present"] as? Bool == false && keys["new"]?["present"] as? Bool == true)
                #expect(keys["old"]?["tokens_verified_24h"] as? Int == 3)
                #expect(keys["new"]?["tokens_verified_24h"] as? Int == 2)
                #expect((keys["new"]?["fingerprint"] as? String)?.hasPrefix("sha256:") == true)
            }
        }
    }

    @Test("kid spray: tokens naming made-up keys cost the source one request a minute, and nothing verifies them")
    func kidSpray() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let key = try PublishedKey.rsa("real", index: 0)
                jwks.publish([key])
                let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url("/jwks.json")])
                #expect(try await setup.signIn(try await setup.layerToken(key)).status == 201)
                for minute in 0..<3 {
                    for spray in 0..<20 {
                        let answer = try await setup.signIn(try await setup.layerToken(key, kid: "made-up-\(minute)-\(spray)"))
                        #expect(answer.data["reason"] as? String == "eit_key_not_found")
                        server.clock.advance(by: 2)
                    }
                    #expect(jwks.requests("/jwks.json") <= 2 + minute, "at most one refetch a minute")
                }
                #expect(jwks.requests("/jwks.json") >= 2, "an unknown kid does make a refetch")
                #expect(try await setup.signIn(try await setup.layerToken(key)).status == 201)
            }
        }
    }

    @Test("outage: the last good keys verify through it, the alert shows (status, metric, event), and past the grace period they are refused")
    func outage() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let key = try PublishedKey.rsa("k1", index: 0)
                jwks.publish([key])
                jwks.setCacheControl("max-age=60")
                let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url("/jwks.json")])
                #expect(try await setup.signIn(try await setup.layerToken(key)).status == 201)

                jwks.setMode(.failing)
                server.clock.advance(by: 61)
                #expect(try await setup.signIn(try await setup.layerToken(key)).status == 201, "the last good set still verifies")
                var status = try await setup.status()
                #expect(status["status"] as? String == "failing")
                #expect((status["last_error"] as? String)?.contains("HTTP 503") == true, "\(status)")
                #expect(status["trusted_until"] as? String != nil)
                let metrics = try await server.request(.GET, "/metrics").text
                #expect(metrics.contains("vouch_key_sources_failing 1"), "\(metrics.split(separator: "\n").filter { $0.contains("key_source") })")
                #expect(metrics.contains(#"vouch_key_source_fetches_total{outcome="failed"}"#))

                // A day later (the default grace) the keys are no longer trusted.
                server.clock.advance(by: 86_400)
                let refused = try await setup.signIn(try await setup.layerToken(key))
                #expect(refused.data["reason"] as? String == "eit_key_not_found")
                #expect((refused.data["hint"] as? String ?? refused.text).contains("failed since"), "\(refused.text)")
                #expect(try await setup.status()["status"] as? String == "expired")

                jwks.setMode(.serving)
                server.clock.advance(by: 61)
                #expect(try await setup.signIn(try await setup.layerToken(key)).status == 201)
                status = try await setup.status()
                #expect(status["status"] as? String == "ok" && status["last_error"] == nil)

                let appUUID = try #require(UUID(uuidString: Fixture.bare(setup.appID)))
                let events = try await server.store.settledSecurityEvents(appID: appUUID, count: 2)
                #expect(events.map(\.kind).filter { $0 != .sessionCreated } == [.keySourceFailing, .keySourceRecovered])
            }
        }
    }

    @Test("a JWKS too large, too slow, redirecting, or naming a forbidden address is refused; the operator is told why")
    func unsafeSources() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                for (url, said) in [
                    ("http://10.0.0.7/jwks.json", "private"), ("http://169.254.169.254/latest/meta-data", "link-local"),
                    ("https://user:pw@keys.example/jwks.json", "user"), ("ftp://keys.example/jwks.json", "ftp"),
                ] {
                    let answer = try await server.post("/admin/providers", ["name": "P", "jwks_uri": url], admin: true)
                    #expect(answer.status == 422 && answer.data["property"] as? String == "jwks_uri", "\(url): \(answer.text)")
                    #expect(answer.text.lowercased().contains(said), "\(url): \(answer.text)")
                }
                let key = try PublishedKey.rsa("k", index: 0)
                jwks.publish([key])
                for (path, said) in [("/huge", "larger than 64 KiB"), ("/redirect", "redirects are not followed")] {
                    let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url(path)])
                    let answer = try await setup.signIn(try await setup.layerToken(key))
                    #expect(answer.data["reason"] as? String == "eit_key_not_found", "\(path): \(answer.text)")
                    #expect((try await setup.status()["last_error"] as? String)?.contains(said) == true, "\(path)")
                }
                #expect(jwks.requests("/jwks.json") == 0, "the redirect was not followed")
            }
            // The protocol's own bound: a source that never answers costs a sign-in 5 s.
            try await LiveServer.run(configure: { $0.allowsLoopbackOutbound = true }) { server in
                let key = try PublishedKey.rsa("k", index: 0)
                let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url("/hang")])
                let started = ContinuousClock.now
                let answer = try await setup.signIn(try await setup.layerToken(key))
                #expect(answer.data["reason"] as? String == "eit_key_not_found", "\(answer.text)")
                #expect(ContinuousClock.now - started < .seconds(30), "bounded by the fetch's limit, not by the source")
                #expect((try await setup.status()["last_error"] as? String)?.contains("within 5 s") == true)
            }
        }
        try await LiveServer.run { server in
            let answer = try await server.post("/admin/providers", ["name": "P", "jwks_uri": "http://127.0.0.1:9/jwks.json"], admin: true)
            #expect(answer.status == 422, "loopback needs --allow-loopback-outbound: \(answer.text)")
        }
    }

    @Test("two providers whose JWKS share a kid: each provider's tokens verify only with its own key")
    func sharedKeyID() async throws {
        try await JWKSServer.run { first in
            try await JWKSServer.run { second in
                try await LiveServer.run(configure: Self.loopback) { server in
                    let mine = try PublishedKey.rsa("shared", index: 0)
                    let theirs = try PublishedKey.rsa("shared", index: 1)
                    first.publish([mine])
                    second.publish([theirs])
                    let one = try await Setup.make(server, source: ["jwks_uri": first.url("/jwks.json")])
                    let other = try await server.post("/admin/providers", ["name": "Other", "jwks_uri": second.url("/jwks.json")], admin: true)
                    let otherID = other.json["id"] as? String ?? ""
                    _ = try await server.request(.PUT, "/admin/providers/\(Fixture.bare(otherID))/apps/\(Fixture.bare(one.appID))", admin: true)
                    #expect(try await one.signIn(try await one.layerToken(mine)).status == 201)
                    let crossed = try await one.signIn(try await one.layerToken(theirs))
                    #expect(crossed.data["reason"] as? String == "eit_signature_verification_failed", "\(crossed.text)")
                    let claimed = try await one.signIn(try await one.layerToken(mine, issuer: otherID))
                    #expect(claimed.data["reason"] as? String == "eit_signature_verification_failed", "\(claimed.text)")
                    #expect(try await one.signIn(try await one.layerToken(theirs, issuer: otherID)).status == 201)
                }
            }
        }
    }

    @Test("a forged iss, jku, x5u or jwk pointing elsewhere is never fetched")
    func forgedLocations() async throws {
        try await JWKSServer.run { attacker in
            try await JWKSServer.run { jwks in
                try await LiveServer.run(configure: Self.loopback) { server in
                    let key = try PublishedKey.rsa("k", index: 0)
                    jwks.publish([key])
                    attacker.publish([key])
                    let setup = try await Setup.make(server, source: ["jwks_uri": jwks.url("/jwks.json")])
                    let now = server.clock.now
                    let idToken = try key.sign(
                        header: ["alg": "RS256", "kid": "k", "typ": "JWT"],
                        claims: ["iss": attacker.baseURL, "sub": "mallory", "aud": "x", "iat": now, "exp": now + 60])
                    let answer = try await setup.signIn(idToken)
                    #expect(answer.data["reason"] as? String == "eit_key_not_found", "\(answer.text)")
                    let pointing = try key.sign(
                        header: [
                            "typ": "JWT", "alg": "RS256", "cty": "layer-eit;v=1", "kid": "elsewhere", "jku": attacker.url("/jwks.json"),
                            "x5u": attacker.url("/cert.pem"), "jwk": key.jwk,
                        ],
                        claims: ["iss": setup.providerID, "prn": "mallory", "iat": now, "exp": now + 60, "nce": try await server.nonce()])
                    #expect(try await setup.signIn(pointing).data["reason"] as? String == "eit_key_not_found")
                    #expect(attacker.totalRequests == 0)
                }
            }
        }
    }

    @Test("admin API: create, show and change a key source; an issuer is one provider's; bad values are 422")
    func adminAPI() async throws {
        try await JWKSServer.run { jwks in
            try await LiveServer.run(configure: Self.loopback) { server in
                let created = try await server.post(
                    "/admin/providers", ["name": "Fed", "issuer": jwks.baseURL, "client_id": "client-1", "federated": true], admin: true)
                #expect(created.status == 201, "\(created.text)")
                let source = created.json["key_source"] as? [String: Any]
                #expect(source?["issuer"] as? String == jwks.baseURL && source?["federated"] as? Bool == true)
                #expect(source?["algorithm"] as? String == "RS256" && source?["jwks_uri"] == nil)
                let id = Fixture.bare(created.json["id"] as? String ?? "")

                let clash = try await server.post("/admin/providers", ["name": "Clash", "issuer": jwks.baseURL], admin: true)
                #expect(clash.status == 409, "\(clash.text)")

                let patched = try await server.request(
                    .PATCH, "/admin/providers/\(id)", body: #"{"client_id": "client-2", "algorithm": "ES256"}"#, admin: true)
                #expect((patched.json["key_source"] as? [String: Any])?["client_id"] as? String == "client-2", "\(patched.text)")
                #expect((patched.json["key_source"] as? [String: Any])?["issuer"] as? String == jwks.baseURL)

                for (body, property) in [
                    (#"{"federated": true, "client_id": null}"#, "client_id"), (#"{"algorithm": "HS256"}"#, "algorithm"),
                    (#"{"issuer": "layer:///providers/x"}"#, "issuer"), (#"{"client_id": ""}"#, "client_id"),
                ] {
                    let answer = try await server.request(.PATCH, "/admin/providers/\(id)", body: body, admin: true)
                    #expect(answer.status == 422 && answer.data["property"] as? String == property, "\(body): \(answer.text)")
                }
                let plain = try await server.post("/admin/providers", ["name": "Plain", "federated": true], admin: true)
                #expect(plain.status == 422, "\(plain.text)")

                let removed = try await server.request(
                    .PATCH, "/admin/providers/\(id)", body: #"{"issuer": null, "client_id": null, "federated": false, "algorithm": "RS256"}"#,
                    admin: true)
                #expect(removed.status == 200 && removed.json["key_source"] == nil, "\(removed.text)")
                #expect(try await server.request(.GET, "/admin/providers/\(id)/key-source", admin: true).status == 404)
                #expect(try await server.request(.PATCH, "/admin/providers/\(UUID().uuidString.lowercased())", body: "{}", admin: true).status == 404)

                let audit = try await server.request(.GET, "/admin/audit?limit=20", admin: true).json["events"] as? [[String: Any]] ?? []
                #expect(audit.contains { ($0["detail"] as? [String: Any])?["action"] as? String == "provider.update" }, "\(audit)")
            }
        }
    }
}
