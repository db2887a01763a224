import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP request to a URL an app registered, sent to the address `OutboundPolicy` checked:
/// the connection goes to that address (TLS names the URL's host, so the certificate is checked
/// against it), a redirect is an answer like any other and never followed, and every part is
/// bounded: the connection, the whole exchange, and how much of the answer is read.
struct OutboundHTTPClient: Sendable {
    struct Limits: Sendable {
        var connectTimeout: TimeAmount = .seconds(5)
        /// From the first byte sent to the answer's head and the part of its body that is read.
        var exchangeTimeout: TimeAmount = .seconds(10)
        /// The most of an answer's body that is kept; past it the connection is closed (the
        /// status is already known).
        var maximumBodyBytes = 16 * 1024
    }

    let limits: Limits
    /// Made once: building a context reads the trust roots, which no request should pay for.
    private let sslContext: Result<NIOSSLContext, OutboundFailure>
    let group: any EventLoopGroup

    /// The system's trust roots, read once per process: every client of every server in the
    /// process (webhooks, key sources) shares them, rather than each reading the files anew.
    private static let systemTrust = Result { try NIOSSLContext(configuration: .makeClientConfiguration()) }
        .mapError { OutboundFailure.tls("\($0)") }

    /// - Parameter tls: the certificates a TLS destination must chain to: the system's (`nil`),
    ///   unless a test trusts its own.
    init(
        limits: Limits = Limits(), tls: TLSConfiguration? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.limits = limits
        self.group = group
        sslContext =
            if let tls {
                Result { try NIOSSLContext(configuration: tls) }.mapError { OutboundFailure.tls("\($0)") }
            } else {
                Self.systemTrust
            }
    }

    /// What came back: the status and the start of the body, or why nothing usable did.
    enum Outcome: Sendable, Equatable {
        case answered(status: Int, body: [UInt8])
        case failed(OutboundFailure)
    }

    /// `POST` `body` to `destination` with `headers` (`Host`, `Content-Type`, `Content-Length`,
    /// `Connection: close` and `User-Agent` are set here).
    func post(_ body: [UInt8], to destination: OutboundDestination, headers: [(String, String)]) async -> Outcome {
        var all = [("Content-Type", "application/json")]
        all += headers
        switch await exchange(.POST, body: body, to: destination, headers: all, userAgent: "Vouch-Webhooks/1") {
        case .success(let response): return .answered(status: response.status, body: response.body)
        case .failure(let failure): return .failed(failure)
        }
    }

    /// `GET` `destination`: the whole answer, or as much of its body as the limit allows
    /// (`OutboundResponse.bodyExceededLimit` says when there was more).
    func get(_ destination: OutboundDestination, headers: [(String, String)], userAgent: String) async -> Result<OutboundResponse, OutboundFailure> {
        await exchange(.GET, body: nil, to: destination, headers: headers, userAgent: userAgent)
    }

    private func exchange(
        _ method: HTTPMethod, body: [UInt8]?, to destination: OutboundDestination, headers: [(String, String)], userAgent: String
    ) async -> Result<OutboundResponse, OutboundFailure> {
        let url = destination.url
        let sslContext: NIOSSLContext?
        switch (url.scheme, self.sslContext) {
        case ("https", .success(let context)): sslContext = context
        case ("https", .failure(let failure)): return .failure(failure)
        default: sslContext = nil
        }
        let promise = group.next().makePromise(of: OutboundResponse.self)
        let maximumBodyBytes = limits.maximumBodyBytes
        let host = url.host
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(limits.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        let serverName = OutboundAddressKind.isIPLiteral(host) ? nil : host
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(
                        OutboundResponseCollector(promise: promise, maximumBodyBytes: maximumBodyBytes))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(to: destination.address).get()
        } catch {
            // The collector never saw a channel: its promise is settled here (NIO refuses to drop one unsettled).
            let failure: OutboundFailure =
                (error as? ChannelError) == .connectTimeout(limits.connectTimeout) ? .connectTimedOut : .connectionFailed("\(error)")
            promise.fail(failure)
            return .failure(failure)
        }
        let deadline = channel.eventLoop.scheduleTask(in: limits.exchangeTimeout) {
            promise.fail(OutboundFailure.timedOut)
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: url.pathAndQuery)
        let defaultPort = url.scheme == "https" ? 443 : 80
        let bracketed = host.contains(":") ? "[\(host)]" : host
        head.headers.add(name: "Host", value: url.port == defaultPort ? bracketed : "\(bracketed):\(url.port)")
        head.headers.add(name: "User-Agent", value: userAgent)
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let outcome: Result<OutboundResponse, OutboundFailure>
        do {
            // A shutdown does not wait out a server that never answers.
            outcome = .success(
                try await withTaskCancellationHandler {
                    try await promise.futureResult.get()
                } onCancel: {
                    promise.fail(OutboundFailure.cancelled)
                    channel.close(promise: nil)
                })
        } catch let failure as OutboundFailure {
            outcome = .failure(failure)
        } catch {
            outcome = .failure(.connectionFailed("\(error)"))
        }
        deadline.cancel()
        try? await channel.close()
        return outcome
    }
}

/// An answer as far as it was read.
struct OutboundResponse: Sendable, Equatable {
    var status: Int
    var headers: HTTPHeaders
    /// At most `Limits.maximumBodyBytes`.
    var body: [UInt8]
    /// The server had more to send than the limit: the connection was closed there.
    var bodyExceededLimit: Bool
}

/// Why an outbound request brought no answer; said to the endpoint's owner (a paused endpoint's
/// reason), so each names what went wrong in words.
enum OutboundFailure: Error, Sendable, Equatable {
    case connectTimedOut
    case timedOut
    case connectionFailed(String)
    case tls(String)
    /// The connection closed before a whole answer's head arrived.
    case noAnswer
    /// The attempt was given up because the server is shutting down.
    case cancelled

    var explanation: String {
        switch self {
        case .connectTimedOut: "the connection was not accepted in time"
        case .timedOut: "no answer in time"
        case .connectionFailed(let detail): "the connection failed (\(detail))"
        case .tls(let detail): "TLS failed (\(detail))"
        case .noAnswer: "the connection closed without an answer"
        case .cancelled: "the attempt was stopped by a shutdown"
        }
    }
}

/// Reads the answer's head and at most `maximumBodyBytes` of its body, then fulfils the promise
/// once (a later event, or the deadline, finds it fulfilled and does nothing). Made on, and used
/// only on, its channel's event loop.
final class OutboundResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<OutboundResponse>
    private let maximumBodyBytes: Int
    private var status: Int?
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    private var exceeded = false
    private var done = false

    init(promise: EventLoopPromise<OutboundResponse>, maximumBodyBytes: Int) {
        self.promise = promise
        self.maximumBodyBytes = maximumBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            headers = head.headers
        case .body(var buffer):
            let room = maximumBodyBytes - body.count
            if buffer.readableBytes > room { exceeded = true }
            body += buffer.readBytes(length: min(room, buffer.readableBytes)) ?? []
            if exceeded { finish(context) }
        case .end:
            finish(context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done { status == nil ? fail(.noAnswer) : finish(context) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !done {
            if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
                fail(.tls("\(error)"))
            } else if status == nil {
                fail(.connectionFailed("\(error)"))
            } else {
                finish(context)
            }
        }
        context.close(promise: nil)
    }

    private func finish(_ context: ChannelHandlerContext) {
        guard let status else { return fail(.noAnswer) }
        done = true
        promise.succeed(OutboundResponse(status: status, headers: headers, body: body, bodyExceededLimit: exceeded))
        context.close(promise: nil)
    }

    private func fail(_ failure: OutboundFailure) {
        done = true
        promise.fail(failure)
    }
}
