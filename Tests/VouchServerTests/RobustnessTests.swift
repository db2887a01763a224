import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTestSupport
import VouchTokens

@Suite("Robustness: background purge, and no input ever produces a 5xx")
struct RobustnessTests {
    @Test("the background purge removes used nonces once they have expired")
    func backgroundPurge() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let nonce = try await server.nonce()
            let token = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now))
            #expect(try await fixture.signIn(token).status == 201)
            let hash = Array(SHA256.hash(data: try #require(Base64URL.decodeCanonical(nonce))))
            let expiresAt = server.clock.now + 600
            #expect(try await server.store.serverNonceUsed(hash: hash, expiresAt: expiresAt), "the use of the nonce is recorded")

            // A purge before the nonce expires keeps its record.
            try await server.purges.purgeNow()
            #expect(try await server.store.serverNonceUsed(hash: hash, expiresAt: expiresAt), "not purged before the nonce expires")

            server.clock.advance(by: 601)
            try await server.purges.purgeNow()
            #expect(try await !server.store.serverNonceUsed(hash: hash, expiresAt: expiresAt), "purged by the first purge after expiry")
            // And the expired nonce is refused on its own merits, not because a record is left.
            let reuse = try fixture.layerToken(claims: fixture.layerClaims(nonce: nonce, now: server.clock.now))
            #expect(try await fixture.signIn(reuse).data["reason"] as? String == "eit_nonce_not_found")
        }
    }

    @Test("random requests on every route: never a 5xx, always a §2 body")
    func fuzzRoutes() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let paths = [
                "/health", "/nonces", "/sessions", "/sessions/abc", "/users/me", "/admin/apps", "/admin/apps/\(app)",
                "/admin/providers", "/admin/providers/\(Fixture.bare(fixture.providerID))/keys", "/admin/keys/\(Fixture.bare(fixture.activeKey.id))",
                "/admin/apps/\(app)/users/%FF%FE", "/admin/apps/\(app)/users/a%00b/sessions", "/admin/tools/validate-identity-token",
                "/admin/apps/\(app)/registration-secrets", "/%2e%2e/%2e%2e/etc/passwd", "/admin/apps/%20", "/sessions/%",
            ]
            let methods: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE]
            let bodies = [
                "", "{}", "[]", "null", "{\"identity_token\":null,\"app_id\":null}", "{\"name\":{\"a\":[1,2,{}]}}",
                "{\"session_ttl_seconds\":1e400}", "{\"session_ttl_seconds\":\"30\"}",
                "{\"public_key\":\"-----BEGIN PUBLIC KEY-----\\nAAAA\\n-----END PUBLIC KEY-----\"}",
                "{\"status\":7}", "{\"suspended\":\"yes\"}", "{\"generate\":1}", String(repeating: "[", count: 20_000),
                "{\"identity_token\":\"\(String(repeating: ".", count: 9000))\",\"app_id\":\"\(fixture.appID)\"}",
            ]
            var generator = SeededGenerator(seed: 0x5EED)
            for round in 0..<400 {
                let method = methods[Int(generator.next() % UInt64(methods.count))]
                let path = paths[Int(generator.next() % UInt64(paths.count))]
                var body = bodies[Int(generator.next() % UInt64(bodies.count))]
                if round % 3 == 0 {
                    body = String(decoding: (0..<Int(generator.next() % 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }, as: UTF8.self)
                }
                let answer = try await server.request(method, path, body: body, admin: generator.next() % 2 == 0)
                #expect(answer.status < 500, "\(method) \(path) \(body.prefix(80)): \(answer.status) \(answer.text)")
                if answer.status >= 400 {
                    #expect(
                        answer.json["id"] is String && answer.json["code"] is Int && answer.json["message"] is String,
                        "\(method) \(path): \(answer.text)")
                }
            }
            #expect(try await server.request(.GET, "/health").status == 200, "still healthy")
        }
    }
}
