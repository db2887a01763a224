import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
import VouchTestSupport

@testable import VouchServer

/// The webhook sender against a real receiver on 127.0.0.1: it connects to the checked address,
/// follows no redirect, and bounds the wait and what it reads.
@Suite("Outbound HTTP: one bounded request to the checked address")
struct OutboundHTTPClientTests {
    /// What the receiver saw of one request.
    struct Received: Sendable {
        let path: String
        /// The request line's target, query included.
        let target: String
        let host: String?
        let contentType: String?
        let signature: String?
        let body: [UInt8]
    }

    /// A receiver with one route per behaviour; `release` ends the requests that hang.
    static func withReceiver(_ body: @Sendable (_ port: Int, _ received: Shared<[Received]>) async throws -> Void) async throws {
        let received = Shared<[Received]>([])
        let (hung, release) = AsyncStream.makeStream(of: Never.self)
        let router = Router()
        let record: @Sendable (Request, String) async throws -> Void = { request, path in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            received.withLock {
                $0.append(
                    Received(
                        path: path, target: request.uri.description, host: request.head.authority, contentType: request.headers[.contentType],
                        signature: request.headers[HTTPField.Name("Vouch-Signature")!], body: Array(buffer: bytes)))
            }
        }
        router.post("/ok") { request, _ -> Response in
            try await record(request, "/ok")
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "thanks")))
        }
        router.post("/fail") { request, _ -> Response in
            try await record(request, "/fail")
            return Response(status: .internalServerError)
        }
        router.post("/redirect") { request, _ -> Response in
            try await record(request, "/redirect")
            return Response(status: .found, headers: [.location: "/ok"])
        }
        router.post("/hang") { request, _ -> Response in
            try await record(request, "/hang")
            for await _ in hung {}
            return Response(status: .ok)
        }
        router.post("/huge") { request, _ -> Response in
            try await record(request, "/huge")
            return WebhookReceiver.gigabyteAnswer()
        }
        var logger = Logger(label: "outbound-receiver")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { client in
            defer { release.finish() }
            try await body(client.port!, received)
        }
    }

    static func destination(port: Int, path: String) async throws -> OutboundDestination {
        try await OutboundPolicy(allowsLoopback: true).destination("http://127.0.0.1:\(port)\(path)?attempt=1")
    }

    static let body = Array(#"{"id":"evt_1","type":"session.ended"}"#.utf8)

    @Test("the request reaches the checked address with its body, headers and query; the answer's status and start come back")
    func delivered() async throws {
        try await Self.withReceiver { port, received in
            let client = OutboundHTTPClient()
            let outcome = await client.post(
                Self.body, to: try await Self.destination(port: port, path: "/ok"), headers: [("Vouch-Signature", "t=1,v1=ab")])
            #expect(outcome == .answered(status: 200, body: Array("thanks".utf8)))
            let seen = try #require(received.value.first)
            #expect(seen.path == "/ok" && seen.target == "/ok?attempt=1" && seen.body == Self.body)
            #expect(seen.host == "127.0.0.1:\(port)" && seen.contentType == "application/json" && seen.signature == "t=1,v1=ab")
            #expect(
                await client.post(Self.body, to: try await Self.destination(port: port, path: "/fail"), headers: [])
                    == .answered(status: 500, body: []))
        }
    }

    @Test("a redirect is an answer, never followed")
    func redirectNotFollowed() async throws {
        try await Self.withReceiver { port, received in
            let outcome = await OutboundHTTPClient().post(Self.body, to: try await Self.destination(port: port, path: "/redirect"), headers: [])
            #expect(outcome == .answered(status: 302, body: []))
            #expect(received.value.map(\.path) == ["/redirect"], "the Location was not visited")
        }
    }

    @Test("a receiver that never answers is given up on at the deadline; one that answers a gigabyte is read 16 KiB of")
    func bounded() async throws {
        try await Self.withReceiver { port, _ in
            var limits = OutboundHTTPClient.Limits()
            limits.exchangeTimeout = .milliseconds(500)
            let client = OutboundHTTPClient(limits: limits)
            let started = ContinuousClock.now
            #expect(await client.post(Self.body, to: try await Self.destination(port: port, path: "/hang"), headers: []) == .failed(.timedOut))
            #expect(ContinuousClock.now - started < .seconds(30), "bounded by the deadline, not the receiver")

            let huge = await OutboundHTTPClient().post(Self.body, to: try await Self.destination(port: port, path: "/huge"), headers: [])
            guard case .answered(let status, let body) = huge else {
                Issue.record("\(huge)")
                return
            }
            #expect(status == 200 && body.count == OutboundHTTPClient.Limits().maximumBodyBytes)
        }
    }

    @Test("nothing listening: a connection failure, said in words")
    func refused() async throws {
        let destination = try await OutboundPolicy(allowsLoopback: true).destination("http://127.0.0.1:1/hook")
        let outcome = await OutboundHTTPClient().post(Self.body, to: destination, headers: [])
        guard case .failed(.connectionFailed(let detail)) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(!detail.isEmpty)
    }
}
