import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import VouchTestSupport

/// The app's own realtime service, as far as a test needs it: `GET /hold` records the
/// `Authorization` it was sent, holds the first request until `release` opens, and answers it
/// with the authentication challenge; later requests are answered 200 at once.
struct HoldingService: Sendable {
    let url: URL
    let entered: Latch
    let release: Latch
    private let headers: Shared<[String]>

    /// Every `Authorization` header received, in order.
    var authorizations: [String] { headers.withLock { $0 } }

    static func run(_ body: @Sendable (HoldingService) async throws -> Void) async throws {
        let entered = Latch(), release = Latch()
        let headers = Shared<[String]>([])
        let router = Router()
        router.get("hold") { request, _ -> Response in
            let count = headers.withLock {
                $0.append(request.headers[.authorization] ?? "")
                return $0.count
            }
            guard count == 1 else { return Response(status: .ok) }
            entered.open()
            await release.waitIgnoringCancellation()
            let challenge = #"{"id":"authentication_required","code":4,"message":"held","url":"","data":{"nonce":"held-nonce","reason":"session_revoked"}}"#
            return Response(
                status: .unauthorized, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: challenge)))
        }
        let port = Shared(0)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { port.set($0.localAddress?.port ?? 0) },
            logger: Logger(label: "holding-service", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await app.test(.live) { _ in
            try await body(
                HoldingService(
                    url: URL(string: "http://127.0.0.1:\(port.value)/hold")!, entered: entered,
                    release: release, headers: headers))
        }
    }
}
