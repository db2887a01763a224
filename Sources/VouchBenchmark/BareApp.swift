import Foundation
import Hummingbird
import Logging
import VouchServer
import VouchTokens

/// The floor for the HTTP figures: Hummingbird 2 with one route, answering `POST /nonces` with 32
/// random bytes in the same JSON shape as Vouch, and no store, no middleware. Whatever Vouch
/// costs beyond this is Vouch's.
enum BareApp {
    static func run(port: Int) async throws {
        let router = Router()
        router.post("/nonces") { _, _ -> Response in
            // The random source Vouch's own nonces come from (one getrandom(2) for the 32 bytes).
            // Drawn a byte at a time with `UInt8.random`, the floor spent a fifth of its CPU in
            // 32 system calls a request, and every ratio to it looked better than it was.
            let nonce = Base64URL.encode(SecureRandom.bytes(32))
            let body = #"{"expires_at":"2026-01-01T00:00:00Z","nonce":"\#(nonce)"}"#
            return Response(status: .created, headers: [.contentType: "application/json; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        // The log handler `vouch serve` uses: Hummingbird's default formats every request's
        // metadata when it is set, a cost of the default, not of the framework.
        var logger = Logger(label: "bare-app") { LazyMetadataLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                              onServerRunning: { _ in print("bare app listening on 127.0.0.1:\(port)") }, logger: logger)
        try await app.runService()
    }
}
