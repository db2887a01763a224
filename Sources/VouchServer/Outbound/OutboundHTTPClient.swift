import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// One HTTP request to a URL an app registered, sent to the address `OutboundPolicy` checked:
/// the connection goes to that address (TLS names the URL's host, so the certificate is checked
/// against it), a redirect is an answer like any other and never followed, and every part is
/// bounded: the connection, the whole exchange, and how much of the answer is read. A connection
/// whose answer was read whole, and which the receiver keeps open, is kept for the next request to
/// the same destination (`OutboundConnectionPool`).
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
    let pool: OutboundConnectionPool

    /// - Parameter tls: the certificates a TLS destination must chain to: the system's, unless a
    ///   test trusts its own.
    init(
        limits: Limits = Limits(), tls: TLSConfiguration = .makeClientConfiguration(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, pool: OutboundConnectionPool = OutboundConnectionPool()
    ) {
        self.limits = limits
        self.group = group
        self.pool = pool
        sslContext = Result { try NIOSSLContext(configuration: tls) }.mapError { OutboundFailure.tls("\($0)") }
    }

    /// What came back: the status and the start of the body, or why nothing usable did.
    enum Outcome: Sendable, Equatable {
        case answered(status: Int, body: [UInt8])
        case failed(OutboundFailure)
    }

    /// `POST` `body` to `destination` with `headers` (`Host`, `Content-Type`, `Content-Length`
    /// and `User-Agent` are set here). On a kept connection that turns out closed before any
    /// answer (the receiver dropped it while idle), the request is sent once more on a new one.
    func post(_ body: [UInt8], to destination: OutboundDestination, headers: [(String, String)]) async -> Outcome {
        let sslContext: NIOSSLContext?
        switch (destination.url.scheme, self.sslContext) {
        case ("https", .success(let context)): sslContext = context
        case ("https", .failure(let failure)): return .failed(failure)
        default: sslContext = nil
        }
        let key = OutboundConnectionPool.Key(destination)
        let request = Self.request(body, to: destination.url, headers: headers)
        if let kept = pool.take(key) {
            let (outcome, reusable) = await exchange(request, on: kept)
            switch outcome {
            case .failed(.noAnswer), .failed(.connectionFailed): break
            default: return finish(kept, key, outcome: outcome, reusable: reusable)
            }
            kept.close(promise: nil)
        }
        let channel: any Channel
        switch await connect(to: destination, sslContext: sslContext) {
        case .success(let connected): channel = connected
        case .failure(let failure): return .failed(failure)
        }
        let (outcome, reusable) = await exchange(request, on: channel)
        return finish(channel, key, outcome: outcome, reusable: reusable)
    }

    private func finish(_ channel: any Channel, _ key: OutboundConnectionPool.Key, outcome: Outcome, reusable: Bool) -> Outcome {
        if reusable, channel.isActive { pool.give(channel, key) } else { channel.close(promise: nil) }
        return outcome
    }

    private struct Request: Sendable {
        let head: HTTPRequestHead
        let body: ByteBuffer
    }

    private static func request(_ body: [UInt8], to url: OutboundURL, headers: [(String, String)]) -> Request {
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: url.pathAndQuery)
        let defaultPort = url.scheme == "https" ? 443 : 80
        let bracketed = url.host.contains(":") ? "[\(url.host)]" : url.host
        head.headers.add(name: "Host", value: url.port == defaultPort ? bracketed : "\(bracketed):\(url.port)")
        head.headers.add(name: "User-Agent", value: "Vouch-Webhooks/1")
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        return Request(head: head, body: ByteBuffer(bytes: body))
    }

    /// A connection, its TLS handshake done when the URL is `https`: a handshake that fails is the
    /// attempt's failure (`.tls`), before any request is written.
    private func connect(to destination: OutboundDestination, sslContext: NIOSSLContext?) async -> Result<any Channel, OutboundFailure> {
        let host = destination.url.host
        let maximumBodyBytes = limits.maximumBodyBytes
        let handshake = group.next().makePromise(of: Void.self)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(limits.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        let serverName = OutboundAddressKind.isIPLiteral(host) ? nil : host
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        try channel.pipeline.syncOperations.addHandler(TLSHandshakeWaiter(promise: handshake))
                    } else {
                        handshake.succeed()
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(OutboundResponseCollector(maximumBodyBytes: maximumBodyBytes))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(to: destination.address).get()
        } catch {
            handshake.fail(OutboundFailure.noAnswer)
            return .failure(
                (error as? ChannelError) == .connectTimeout(limits.connectTimeout) ? .connectTimedOut : .connectionFailed("\(error)"))
        }
        pool.recordOpened()
        let deadline = channel.eventLoop.scheduleTask(in: limits.connectTimeout) {
            handshake.fail(OutboundFailure.connectTimedOut)
        }
        defer { deadline.cancel() }
        do {
            try await handshake.futureResult.get()
            return .success(channel)
        } catch {
            channel.close(promise: nil)
            return .failure(error as? OutboundFailure ?? .tls("\(error)"))
        }
    }

    /// One request and its answer on `channel`, bounded by the exchange's deadline; whether the
    /// connection may carry another.
    private func exchange(_ request: Request, on channel: any Channel) async -> (Outcome, reusable: Bool) {
        let promise = channel.eventLoop.makePromise(of: OutboundResponseCollector.Answer.self)
        do {
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: OutboundResponseCollector.self).arm(promise)
            }.get()
        } catch {
            promise.fail(OutboundFailure.noAnswer)
            return (.failed(.noAnswer), false)
        }
        let deadline = channel.eventLoop.scheduleTask(in: limits.exchangeTimeout) {
            promise.fail(OutboundFailure.timedOut)
            channel.close(promise: nil)
        }
        channel.write(HTTPClientRequestPart.head(request.head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(request.body)), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer { deadline.cancel() }
        do {
            // A shutdown does not wait out a receiver that never answers.
            let answer = try await withTaskCancellationHandler {
                try await promise.futureResult.get()
            } onCancel: {
                promise.fail(OutboundFailure.cancelled)
                channel.close(promise: nil)
            }
            return (.answered(status: answer.status, body: answer.body), answer.reusable)
        } catch let failure as OutboundFailure {
            return (.failed(failure), false)
        } catch {
            return (.failed(.connectionFailed("\(error)")), false)
        }
    }
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

/// Completes its promise when the TLS handshake is done, or fails it with why it was not.
final class TLSHandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            promise.succeed()
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(OutboundFailure.tls("\(error)"))
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(OutboundFailure.tls("the connection closed during the handshake"))
        context.fireChannelInactive()
    }
}

/// Reads each answer's head and at most `maximumBodyBytes` of its body, then fulfils the
/// request's promise once (a later event, or the deadline, finds it fulfilled and does nothing).
/// Armed anew for each request its connection carries. Made on, and used only on, its channel's
/// event loop.
final class OutboundResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    /// An answer, and whether its connection may carry another request: the whole body was read
    /// and the receiver did not ask to close.
    struct Answer: Sendable {
        let status: Int
        let body: [UInt8]
        let reusable: Bool
    }

    private let maximumBodyBytes: Int
    private var promise: EventLoopPromise<Answer>?
    private var status: Int?
    private var keepAlive = false
    private var body: [UInt8] = []

    init(maximumBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
    }

    /// Starts collecting the answer to the request about to be written.
    func arm(_ promise: EventLoopPromise<Answer>) {
        self.promise = promise
        status = nil
        keepAlive = false
        body = []
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard promise != nil else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
            keepAlive = head.isKeepAlive
        case .body(var buffer):
            let room = maximumBodyBytes - body.count
            body += buffer.readBytes(length: min(room, buffer.readableBytes)) ?? []
            if body.count >= maximumBodyBytes {
                finish(reusable: false)
                context.close(promise: nil)
            }
        case .end:
            finish(reusable: keepAlive)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if promise != nil { status == nil ? fail(.noAnswer) : finish(reusable: false) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if promise != nil {
            if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
                fail(.tls("\(error)"))
            } else if status == nil {
                fail(.connectionFailed("\(error)"))
            } else {
                finish(reusable: false)
            }
        }
        context.close(promise: nil)
    }

    private func finish(reusable: Bool) {
        guard let status else { return fail(.noAnswer) }
        promise?.succeed(Answer(status: status, body: body, reusable: reusable))
        promise = nil
    }

    private func fail(_ failure: OutboundFailure) {
        promise?.fail(failure)
        promise = nil
    }
}
