import Foundation
import NIOCore
import NIOHTTP1
import VouchProtocol

/// Sits between NIO's HTTP/1 codec and Hummingbird, where the HTTP version and the raw parse
/// errors are still visible, and makes every connection end when it should:
///
/// - after the response to a request that asked for it (`Connection: close`, in any case or list,
///   and HTTP/1.0 without `keep-alive`), the connection is closed, not left for the client to
///   close;
/// - a request whose body does not finish within the request timeout is cut off;
/// - bytes that are not HTTP get a PROTOCOL §2 body (400, or 431 for over-long headers, 414 for an
///   over-long target) instead of a bare 400, and the connection is closed after it.
///
/// A malformed body (a bad chunk) is the route's to answer: the error reaches the body reader,
/// which answers 400 `invalid_request`; this handler then closes the connection after that
/// response, since the rest of the stream can no longer be framed.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let requestTimeout: TimeAmount
    private let sniffer: RequestLineSniffer
    /// When the request being read must have ended; nil between requests.
    private var requestDeadline: NIODeadline?
    /// The one timer that enforces `requestDeadline`: armed by the first request and, when it
    /// fires, re-armed for the current request's deadline or left off between requests. A timer
    /// scheduled and cancelled for every request would cost more than the request's own JSON.
    private var deadlineTimer: Scheduled<Void>?
    /// A request head was read and its end was not yet.
    private var readingRequest = false
    /// A response head was written and its end was not yet.
    private var writingResponse = false
    /// The connection ends after the current response.
    private var closeAfterResponse = false
    /// Nothing more is read or written: the stream could not be framed, or the final response was sent.
    private var finished = false

    init(requestTimeout: TimeAmount, sniffer: RequestLineSniffer) {
        self.requestTimeout = requestTimeout
        self.sniffer = sniffer
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopDeadlineTimer()
    }

    /// A connection that became the live channel's socket speaks WebSocket frames from here on:
    /// this handler and the sniffer leave before the first frame is read.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let upgrade = event as? HTTPServerUpgradeEvents, case .upgradeComplete = upgrade {
            stopDeadlineTimer()
            let pipeline = context.pipeline.syncOperations
            pipeline.removeHandler(sniffer, promise: nil)
            pipeline.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopDeadlineTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            readingRequest = true
            if !head.isKeepAlive { closeAfterResponse = true }
            let deadline = NIODeadline.now() + requestTimeout
            requestDeadline = deadline
            if deadlineTimer == nil { armDeadlineTimer(context: context, at: deadline) }
        case .body:
            break
        case .end:
            readingRequest = false
            requestDeadline = nil
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        closeAfterResponse = true
        if readingRequest {
            // The route is reading this body: it answers 400 and the connection then closes.
            context.fireErrorCaught(error)
            return
        }
        finished = true
        stopDeadlineTimer()
        if writingResponse {
            // Garbage pipelined behind a request being answered: let that answer go, then close.
            return
        }
        respond(context: context, to: parseError)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !(finished && !writingResponse) else {
            promise?.fail(ChannelError.outputClosed)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head):
            writingResponse = true
            guard closeAfterResponse || finished else {
                // Unchanged: passed on as it came, without wrapping a copy again.
                context.write(data, promise: promise)
                return
            }
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            writingResponse = false
            guard closeAfterResponse || finished else {
                context.write(data, promise: promise)
                return
            }
            finished = true
            let loopBoundContext = context
            let written = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { result in
                promise?.completeWith(result)
                Self.lingeringClose(loopBoundContext)
            }
        }
    }

    private func armDeadlineTimer(context: ChannelHandlerContext, at deadline: NIODeadline) {
        let loopBoundContext = context
        deadlineTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            deadlineTimer = nil
            guard let current = requestDeadline else { return }  // between requests: off until the next
            if current <= .now() {
                // The body did not finish in time: nothing sensible can be answered mid-body.
                loopBoundContext.close(promise: nil)
            } else {
                armDeadlineTimer(context: loopBoundContext, at: current)
            }
        }
    }

    private func stopDeadlineTimer() {
        requestDeadline = nil
        deadlineTimer?.cancel()
        deadlineTimer = nil
    }

    /// Answers bytes that never became a request, then closes.
    private func respond(context: ChannelHandlerContext, to error: HTTPParserError) {
        let rejection: (ErrorKind, String)
        if error == .headerOverflow {
            rejection =
                sniffer.lastLongLineWasRequestLine
                ? (.uriTooLong, "The request target is longer than \(ConnectionLimits.maximumURIBytes) bytes.")
                : (
                    .headersTooLarge,
                    "The request head is too large: a header name or value is limited to "
                        + "\(ConnectionLimits.maximumHeaderFieldBytes) bytes, the target with every name and value to "
                        + "\(ConnectionLimits.maximumHeaderBytes) bytes, the headers to \(ConnectionLimits.maximumHeaderCount) lines."
                )
        } else {
            rejection = (.invalidRequest, "The request is not valid HTTP/1.1.")
        }
        let body = JSONResponse.encode(ErrorBody(rejection.0, message: rejection.1, data: nil))
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: JSONResponse.contentType)
        headers.add(name: "content-length", value: String(body.count))
        headers.add(name: "cache-control", value: "no-store")
        headers.add(name: "connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: .init(statusCode: rejection.0.httpStatus), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let loopBoundContext = context
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            Self.lingeringClose(loopBoundContext)
        }
    }

    /// How long a connection whose output is closed may keep sending before it is cut off.
    static let lingerTime = TimeAmount.seconds(2)

    /// Closes the output first and the connection shortly after: closing at once while the client
    /// is still sending (an over-long target, a broken body) makes the kernel answer with a reset,
    /// which can destroy the response before the client reads it. The client sees the end of the
    /// response, closes, and the connection ends; one that does not is cut off after `lingerTime`.
    private static func lingeringClose(_ context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: lingerTime) {
            context.close(promise: nil)
        }
    }
}
