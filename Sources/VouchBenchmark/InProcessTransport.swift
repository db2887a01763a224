import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded

/// Requests handed straight to a server's responder in this process: its routes, middleware,
/// store and encoders, without sockets, an HTTP codec or event loops. Most of what the HTTP
/// figures move by from run to run is not in what is left, so the distance between two servers'
/// handlers, or two builds of one, shows at a few microseconds.
struct InProcessTransport<Responder: HTTPResponder>: BenchmarkTransport
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    /// One channel for every request's context: the handlers only ask it for the peer's address,
    /// which it does not have.
    let channel: NIOAsyncTestingChannel
    let logger: Logger

    init(responder: Responder, logger: Logger) {
        self.responder = responder
        self.channel = NIOAsyncTestingChannel()
        self.logger = logger
    }

    func send(_ method: String, _ path: String, headers: [String: String], body: String?) async throws -> (status: UInt, body: Data) {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPFields.Element.Name(name) else { throw BenchmarkError("not a header name: \(name)") }
            fields[name] = value
        }
        guard let method = HTTPRequest.Method(method) else { throw BenchmarkError("not an HTTP method: \(method)") }
        let (status, buffer) = try await respond(method, path, headers: fields, body: body.map { ByteBuffer(string: $0) })
        return (UInt(status.code), Data(buffer.readableBytesView))
    }

    /// One request, its body already whole (as the server's body reader would collect it), and the
    /// response's body collected.
    func respond(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, body: ByteBuffer?) async throws -> (HTTPResponse.Status, ByteBuffer) {
        var headers = headers
        if let body { headers[.contentLength] = String(body.readableBytes) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path, headerFields: headers),
            body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = Responder.Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        let response = try await responder.respond(to: request, context: context)
        let collected = CollectedBody()
        try await response.body.write(CollectingWriter(into: collected))
        return (response.status, collected.buffer)
    }
}

/// What a response body wrote (the writer itself is consumed by the body).
private final class CollectedBody {
    var buffer = ByteBuffer()
}

private struct CollectingWriter: ResponseBodyWriter {
    let into: CollectedBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        into.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// A server's responder, whatever its request context.
protocol Requester: Sendable {
    func respond(_ method: HTTPRequest.Method, _ path: String, headers: HTTPFields, body: ByteBuffer?) async throws -> (HTTPResponse.Status, ByteBuffer)
}

extension InProcessTransport: Requester {}
