import Foundation
import Hummingbird
import Logging
import VouchServer
import VouchTokens
import _CryptoExtras

/// The floors for the HTTP figures: Hummingbird 2 with no store and no middleware. Whatever Vouch
/// costs beyond them is Vouch's.
///
/// - `POST /nonces` answers 32 random bytes in the same JSON shape as Vouch's: the unit every
///   ratio of issue 10 is taken against.
/// - `POST /sessions`, when the app is given the provider's public key, is the least any app that
///   signs users in with an RS256 token must do: read the JSON body, verify the token's signature
///   once, and answer a session-shaped body. It reads no claim, applies no rule, opens no nonce
///   and writes nothing, so it is a floor for Vouch's sign-in, not a rival to it: the distance
///   between the two is Vouch's rules, its store and the durable write.
enum BareApp {
    static func run(port: Int, publicKeyPEM: String?) async throws {
        let router = try makeRouter(publicKeyPEM: publicKeyPEM)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { _ in print("bare app listening on 127.0.0.1:\(port)") }, logger: logger)
        try await app.runService()
    }

    /// The log handler `vouch serve` uses, at the level the benchmark runs it: Hummingbird's
    /// default formats every request's metadata when it is set, a cost of the default, not of the
    /// framework.
    static var logger: Logger {
        var logger = Logger(label: "bare-app") { LazyMetadataLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        return logger
    }

    /// The routes, apart from the server, so that the in-process benchmark can call them too.
    static func makeRouter(publicKeyPEM: String?) throws -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/nonces") { _, _ -> Response in
            // The random source Vouch's own nonces come from (one getrandom(2) for the 32 bytes).
            // Drawn a byte at a time with `UInt8.random`, the floor spent a fifth of its CPU in
            // 32 system calls a request, and every ratio to it looked better than it was.
            let nonce = Base64URL.encode(SecureRandom.bytes(32))
            return json(#"{"expires_at":"2026-01-01T00:00:00Z","nonce":"\#(nonce)"}"#)
        }
        if let publicKeyPEM {
            let floor = SignInFloor(publicKey: try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM))
            router.post("/sessions") { request, context in try await floor.signIn(request, context: context) }
            // Where the benchmark's wrk script goes once its tokens run out, as on `vouch serve`.
            router.get("/health") { _, _ in json(#"{"status":"ok"}"#, status: .ok) }
        }
        return router
    }

    static func json(_ body: String, status: HTTPResponse.Status = .created) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
