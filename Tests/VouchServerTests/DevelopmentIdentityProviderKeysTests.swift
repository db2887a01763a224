import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VouchDevelopmentIdentityProvider
import VouchKeySourceTestSupport
import VouchProtocol
import VouchServer
import VouchTestSupport
import VouchTokens

/// The development identity provider's published keys (PROTOCOL §6): its JWKS, and a rotation
/// done in its two steps against a real `vouch serve` that fetches the keys over loopback.
@Suite("The development identity provider's published keys", .serialized, .timeLimit(.minutes(5)))
struct DevelopmentIdentityProviderKeysTests {
    /// Runs the identity provider for `providerID` on a free port while `body` runs.
    static func withIdentityProvider(
        providerID: UUID, _ body: @Sendable (_ url: String, _ keys: PublishedSigningKeys) async throws -> Void
    ) async throws {
        let keys = try await PublishedSigningKeys(providerID: providerID)
        let (ports, port) = AsyncStream<Int>.makeStream()
        let app = DevelopmentIdentityProvider.makeApplication(
            configuration: .init(port: 0, layerSigning: .publishedKeys(keys), sinchMinter: nil),
            logger: Logger(label: "idp-test", factory: { _ in SwiftLogNoOpLogHandler() })
        ) { port.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let bound = await iterator.next() else { throw TestFailure("the identity provider did not start") }
            try await body("http://127.0.0.1:\(bound)", keys)
        }
    }

    static func identityToken(_ idp: String, app: String, user: String, nonce: String) async throws -> String {
        let answer = try await ProcessHTTP.send(.POST, idp + "/identity_tokens", json: ["app_id": app, "user_id": user, "nonce": nonce])
        guard answer.status == 201, let token = answer.json["identity_token"].string else {
            throw TestFailure("identity_tokens answered \(answer)")
        }
        return token
    }

    static func kid(of token: String) throws -> String {
        let header = try #require(token.split(separator: ".").first.flatMap { Base64URL.decodeCanonical(String($0)) })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any])
        return try #require(object["kid"] as? String)
    }

    @Test("the JWKS publishes the signing key as Vouch reads it, for a minute; its tokens verify with it")
    func jwks() async throws {
        try await Self.withIdentityProvider(providerID: UUID()) { idp, keys in
            let answer = try await ProcessHTTP.send(.GET, idp + "/jwks.json")
            #expect(answer.status == 200 && answer.header("Cache-Control") == "max-age=60")
            let document = try JSONWebKeySetDocument(document: Array(answer.body), algorithm: .rs256)
            let signing = keys.status.signing
            #expect(Set(document.keys.keys) == [signing] && signing.hasPrefix("dev-"))
            let token = try await Self.identityToken(idp, app: UUID().uuidString, user: "alice", nonce: "n-1")
            #expect(try Self.kid(of: token) == signing)
            let parts = token.split(separator: ".").map(String.init)
            guard case .rsa(let publicKey) = try #require(document.keys[signing]).key else { throw TestFailure("not an RSA key") }
            let signature = try #require(Base64URL.decodeCanonical(parts[2]))
            #expect(RS256.isValid(signature: signature, for: Array((parts[0] + "." + parts[1]).utf8), publicKey: publicKey))
        }
    }

    @Test("a rotation: the next key is published ahead, fetched by Vouch, then signs; no sign-in fails")
    func rotationWithVouch() async throws {
        try await LiveServer.run(configure: KeySourceTests.loopback) { server in
            let setup = try await KeySourceTests.Setup.make(server, source: [:])
            let providerID = try #require(LayerID.parseProvider(setup.providerID))
            try await Self.withIdentityProvider(providerID: providerID) { idp, _ in
                let update = try await server.request(
                    .PATCH, "/admin/providers/\(setup.bareProvider)", body: #"{"jwks_uri": "\#(idp)/jwks.json"}"#, admin: true)
                #expect(update.status == 200, "\(update.text)")
                let signIn: @Sendable (String) async throws -> String = { user in
                    let token = try await Self.identityToken(idp, app: setup.appID, user: user, nonce: try await server.nonce())
                    let answer = try await setup.signIn(token)
                    #expect(answer.status == 201, "\(user): \(answer.text)")
                    return try Self.kid(of: token)
                }
                let first = try await signIn("alice")

                // Rotating before a next key is published would sign with a key nobody fetched.
                let early = try await ProcessHTTP.send(.POST, idp + "/keys/rotate")
                #expect(early.status == 409 && early.json["error"].string?.contains("POST /keys/next") == true, "\(early)")
                let next = try await ProcessHTTP.send(.POST, idp + "/keys/next")
                #expect(next.status == 201, "\(next)")
                let published = next.json["published"].array?.compactMap(\.string) ?? []
                #expect(published.count == 2 && published.first == first && next.json["signing"].string == first)
                let second = try #require(published.last)
                #expect(try await ProcessHTTP.send(.POST, idp + "/keys/next").status == 409, "one next key at a time")
                #expect(try await signIn("bob") == first, "the old key signs until the rotation")

                // The operator makes Vouch fetch now (a fetch is honoured once per 10 s).
                server.clock.advance(by: 11)
                let refresh = try await server.request(.POST, "/admin/providers/\(setup.bareProvider)/key-source/refresh", admin: true)
                #expect(refresh.status == 200, "\(refresh.text)")
                let seen = (try await setup.status()["keys"] as? [[String: Any]] ?? []).compactMap { $0["kid"] as? String }
                #expect(Set(seen) == [first, second])

                let rotated = try await ProcessHTTP.send(.POST, idp + "/keys/rotate")
                #expect(rotated.status == 200, "\(rotated)")
                #expect(rotated.json["signing"].string == second && rotated.json["withdrawn"].string == first)
                #expect(rotated.json["published"].array?.compactMap(\.string) == [second])
                #expect(try await signIn("carol") == second, "the new key signs at once, and Vouch has it")
                let jwks = try await ProcessHTTP.send(.GET, idp + "/jwks.json")
                #expect(Set(try JSONWebKeySetDocument(document: Array(jwks.body), algorithm: .rs256).keys.keys) == [second])
            }
        }
    }

    @Test("started with an uploaded key, the key routes answer 404 in the provider's error shape")
    func uploadedKeyHasNoKeyRoutes() async throws {
        let minter = try LayerTokenMinter(privateKey: TestRSAKeys.key(0), providerID: UUID(), keyID: UUID())
        let router = DevelopmentIdentityProvider.makeRouter(configuration: .init(layerMinter: minter, sinchMinter: nil))
        try await Application(router: router).test(.router) { client in
            for (method, path) in [(HTTPRequest.Method.get, "/jwks.json"), (.get, "/keys"), (.post, "/keys/next"), (.post, "/keys/rotate")] {
                try await client.execute(uri: path, method: method) { response in
                    #expect(response.status == .notFound, "\(path)")
                    let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                    #expect((body?["error"] as? String)?.contains("--publish-keys") == true && body?["status"] as? Int == 404)
                }
            }
        }
    }
}
