import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import VouchTestSupport
import VouchTokens
import _CryptoExtras

/// A provider's key source on 127.0.0.1, as the key-source tests need it: a JWKS whose keys,
/// `Cache-Control` and behaviour the test changes as it goes, an OpenID discovery document, and
/// every request counted.
///
/// - `/jwks.json`: the published keys, or 503, or no answer, as `mode` says.
/// - `/.well-known/openid-configuration`: `issuer` = `baseURL` (or `discoveryIssuer`), `jwks_uri`
///   = `/jwks.json`.
/// - `/huge`: 200 with 1 MiB of a JWKS-looking body. `/redirect`: 302 to `/jwks.json`.
/// - `/hang`: never answers (until the server stops).
package struct JWKSServer: Sendable {
    package enum Mode: Sendable {
        case serving
        case failing
        case hanging
        /// Serving, each answer after this long.
        case slow(Duration)
    }

    struct State: Sendable {
        var keys: [[String: String]] = []
        var cacheControl: String? = "max-age=3600"
        var mode = Mode.serving
        var discoveryIssuer: String?
        var requests: [String] = []
    }

    package let port: Int
    private let state: Shared<State>

    package var baseURL: String { "http://127.0.0.1:\(port)" }
    package func url(_ path: String) -> String { baseURL + path }

    package func publish(_ keys: [PublishedKey]) { state.withLock { $0.keys = keys.map(\.jwk) } }
    package func publish(jwks: [[String: String]]) { state.withLock { $0.keys = jwks } }
    package func setCacheControl(_ value: String?) { state.withLock { $0.cacheControl = value } }
    package func setMode(_ mode: Mode) { state.withLock { $0.mode = mode } }
    package func setDiscoveryIssuer(_ issuer: String?) { state.withLock { $0.discoveryIssuer = issuer } }
    /// How many requests `path` has had.
    package func requests(_ path: String) -> Int { state.withLock { $0.requests.filter { $0 == path }.count } }
    package var totalRequests: Int { state.withLock { $0.requests.count } }

    package static func run(_ body: @Sendable (JWKSServer) async throws -> Void) async throws {
        let state = Shared(State())
        let (hung, release) = AsyncStream.makeStream(of: Never.self)
        let router = Router()
        let record: @Sendable (String) -> State = { path in
            state.withLock {
                $0.requests.append(path)
                return $0
            }
        }
        let bound = Shared(0)
        router.get("/jwks.json") { _, _ -> Response in
            let now = record("/jwks.json")
            switch now.mode {
            case .failing: return Response(status: .serviceUnavailable)
            case .hanging:
                for await _ in hung {}
                return Response(status: .ok)
            case .serving, .slow:
                if case .slow(let delay) = now.mode { try await Task.sleep(for: delay) }
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                if let cacheControl = now.cacheControl { headers[.cacheControl] = cacheControl }
                let body = try JSONSerialization.data(withJSONObject: ["keys": now.keys], options: [.sortedKeys])
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let now = record("/.well-known/openid-configuration")
            let base = "http://127.0.0.1:\(bound.value)"
            let document = ["issuer": now.discoveryIssuer ?? base, "jwks_uri": base + "/jwks.json"]
            let body = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get("/huge") { _, _ -> Response in
            _ = record("/huge")
            return Response(
                status: .ok,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"keys":["#))
                    let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 * 1024)
                    for _ in 0..<16 { try await writer.write(chunk) }
                    try await writer.write(ByteBuffer(string: "]}"))
                    try await writer.finish(nil)
                })
        }
        router.get("/redirect") { _, _ -> Response in
            _ = record("/redirect")
            return Response(status: .found, headers: [.location: "/jwks.json"])
        }
        router.get("/hang") { _, _ -> Response in
            _ = record("/hang")
            for await _ in hung {}
            return Response(status: .ok)
        }
        var logger = Logger(label: "jwks-server")
        logger.logLevel = .critical
        let ready = Latch()
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                bound.set(channel.localAddress?.port ?? 0)
                ready.open()
            }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { ready.open() }
                try await app.runService()
            }
            defer {
                release.finish()
                group.cancelAll()
            }
            await ready.waitIgnoringCancellation()
            guard bound.value != 0 else { throw TestFailure("the JWKS server could not listen") }
            try await body(JWKSServer(port: bound.value, state: state))
        }
    }
}

/// A provider's signing key and its JWK, as a backend or an identity provider publishes it.
package struct PublishedKey: Sendable {
    package enum Private: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    package let kid: String
    package let key: Private
    /// The public half as a JWK, made with the key.
    package let jwk: [String: String]

    /// One of four fixed RSA keys (`TestRSAKeys`) under `kid`; throws for an index past them or a
    /// key that does not parse.
    package static func rsa(_ kid: String, index: Int) throws -> PublishedKey {
        let key = try TestRSAKeys.key(index)
        return PublishedKey(kid: kid, key: .rsa(key), jwk: try RSAKeyPair(privateKey: key).publicJWK(kid: kid))
    }

    /// A fresh P-256 key under `kid`.
    package static func p256(_ kid: String) -> PublishedKey {
        let key = P256.Signing.PrivateKey()
        let raw = Array(key.publicKey.rawRepresentation)
        let jwk = [
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
            "x": Base64URL.encode(raw[0..<32]), "y": Base64URL.encode(raw[32..<64]),
        ]
        return PublishedKey(kid: kid, key: .p256(key), jwk: jwk)
    }

    /// A compact JWS over exactly this header and these claims.
    package func sign(header: [String: Any], claims: [String: Any]) throws -> String {
        let input = Base64URL.encode(Array(Self.json(header).utf8)) + "." + Base64URL.encode(Array(Self.json(claims).utf8))
        let signature: [UInt8]
        switch key {
        case .rsa(let key): signature = try RS256.sign(Array(input.utf8), privateKey: key)
        case .p256(let key): signature = Array(try key.signature(for: Array(input.utf8)).rawRepresentation)
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// Sorted keys and unescaped slashes, as a minter writes them.
    package static func json(_ object: Any) -> String {
        String(
            decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data(),
            as: UTF8.self)
    }

    /// The PEM of the private key, for a minter outside Swift (PyJWT).
    package var privatePEM: String {
        switch key {
        case .rsa(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        }
    }
}
