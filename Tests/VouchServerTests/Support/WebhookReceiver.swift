import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import VouchTestSupport

/// An app's backend receiving webhooks on 127.0.0.1, as a test needs it: each path behaves one way
/// and every request is recorded with the time it came.
///
/// - `/ok`: 200.
/// - `/flaky`: 500 for the first `failures` requests, then 200.
/// - `/fail`: always 500.
/// - `/hang`: never answers (until the receiver stops).
/// - `/huge`: 200 with a gigabyte of body, written until the sender hangs up.
struct WebhookReceiver: Sendable {
    struct Received: Sendable {
        let path: String
        let eventID: String?
        let eventType: String?
        let signature: String?
        let body: [UInt8]
        let at: ContinuousClock.Instant

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    }

    let port: Int
    private let log: Shared<[Received]>

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    func received(_ path: String) -> [Received] { log.withLock { $0.filter { $0.path == path } } }

    /// Every request to `path`, from any thread (a synchronous wait's condition).
    var all: [Received] { log.withLock { $0 } }

    /// 200 with a gigabyte of body, written until the sender hangs up.
    static func gigabyteAnswer() -> Response {
        Response(
            status: .ok,
            body: ResponseBody { writer in
                let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
                for _ in 0..<(16 * 1024) { try await writer.write(chunk) }
                try await writer.finish(nil)
            })
    }

    /// - Parameter port: 0 for any; a fixed one for a receiver that must be found at an address
    ///   registered before it listened.
    static func run(failures: Int = 5, port: Int = 0, _ body: @Sendable (WebhookReceiver) async throws -> Void) async throws {
        let log = Shared<[Received]>([])
        let (hung, release) = AsyncStream.makeStream(of: Never.self)
        let router = Router()
        let record: @Sendable (Request, String) async throws -> Int = { request, path in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            let header = { (name: String) in request.headers[HTTPField.Name(name)!] }
            return log.withLock {
                $0.append(
                    Received(
                        path: path, eventID: header("Vouch-Event-Id"), eventType: header("Vouch-Event-Type"),
                        signature: header("Vouch-Signature"), body: Array(buffer: bytes), at: .now))
                return $0.filter { $0.path == path }.count
            }
        }
        router.post("/ok") { request, _ -> Response in
            _ = try await record(request, "/ok")
            return Response(status: .ok)
        }
        router.post("/flaky") { request, _ -> Response in
            let count = try await record(request, "/flaky")
            return Response(status: count <= failures ? .internalServerError : .ok)
        }
        router.post("/fail") { request, _ -> Response in
            _ = try await record(request, "/fail")
            return Response(status: .internalServerError)
        }
        router.post("/hang") { request, _ -> Response in
            _ = try await record(request, "/hang")
            for await _ in hung {}
            return Response(status: .ok)
        }
        router.post("/huge") { request, _ -> Response in
            _ = try await record(request, "/huge")
            return Self.gigabyteAnswer()
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        // Run as a service rather than through HummingbirdTesting, which always binds port 0.
        let bound = Latch()
        let boundPort = Shared(0)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                boundPort.set(channel.localAddress?.port ?? 0)
                bound.open()
            }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer { bound.open() }
                try await app.runService()
            }
            defer {
                release.finish()
                group.cancelAll()
            }
            await bound.waitIgnoringCancellation()
            guard boundPort.value != 0 else { throw TestFailure("the webhook receiver could not listen on port \(port)") }
            try await body(WebhookReceiver(port: boundPort.value, log: log))
        }
    }
}
