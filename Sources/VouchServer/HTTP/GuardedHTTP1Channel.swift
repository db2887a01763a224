import HTTPTypes
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// Hummingbird's HTTP/1 channel with Vouch's connection rules added where they can see the wire
/// (an idle timeout, a request timeout, head limits, closing after a final response: see
/// `ConnectionGuard`), and the one WebSocket route, `GET /sessions/live`, upgraded in place.
///
/// The upgrade is decided before any route runs (`LiveGate`): an admitted request becomes a
/// socket; a refused one is answered with the refusal's own error body (the 401 challenge, 429),
/// as any route would answer it, rather than the bare 400 a refused upgrade gets by default; any
/// other request, an upgrade to another path included, goes to the router.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    enum Outcome: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, refusal: APIError?)
        case socket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, LiveAdmission)
    }

    struct Value: ServerChildChannelValue {
        let outcome: EventLoopFuture<Outcome>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let gate: LiveGate?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let decision = NIOLockedValueBox<LiveGate.Decision?>(nil)
            var upgraders: [any NIOTypedHTTPServerProtocolUpgrader<Outcome>] = []
            if let gate {
                upgraders.append(
                    NIOTypedWebSocketServerUpgrader<Outcome>(
                        maxFrameSize: LiveChannelLimits.maximumFrameBytes,
                        shouldUpgrade: { channel, head in
                            let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                            promise.completeWithTask {
                                let decided = await gate.decide(head, channel: channel)
                                decision.withLockedValue { $0 = decided }
                                guard case .admit(let admission) = decided else { return nil }
                                var headers = HTTPHeaders()
                                if let subprotocol = admission.subprotocol {
                                    headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
                                }
                                return headers
                            }
                            return promise.futureResult
                        },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                guard case .admit(let admission) = decision.withLockedValue({ $0 }) else {
                                    throw ChannelError.inappropriateOperationForState
                                }
                                let socket = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                                    wrappingChannelSynchronously: channel,
                                    configuration: .init(isOutboundHalfClosureEnabled: true))
                                return Outcome.socket(socket, admission)
                            }
                        }))
            }
            let requestTimeout = TimeAmount.seconds(limits.requestTimeoutSeconds)
            let sniffer = RequestLineSniffer(longLine: ConnectionLimits.maximumURIBytes)
            let connectionGuard = ConnectionGuard(requestTimeout: requestTimeout, sniffer: sniffer)
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Outcome>(
                upgraders: upgraders,
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try pipeline.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: .seconds(limits.idleTimeoutSeconds), logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        var refusal: APIError?
                        if case .refuse(let error) = decision.withLockedValue({ $0 }) { refusal = error }
                        return Outcome.http(http, refusal: refusal)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<Outcome>(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false  // HTTP is pipelined by NIOAsyncChannel
            configuration.enableErrorHandling = false  // ConnectionGuard answers malformed requests
            configuration.enableResponseHeaderValidation = false  // Swift HTTP Types validate them
            // One limit for the target, each header name and each value.
            configuration.decoderConfiguration.maxHeaderFieldSize = ConnectionLimits.maximumHeaderFieldBytes
            configuration.decoderConfiguration.maxHeaderListSize = ConnectionLimits.maximumHeaderBytes
            configuration.decoderConfiguration.maxHeaderFieldCount = ConnectionLimits.maximumHeaderCount
            let pipeline = channel.pipeline.syncOperations
            let outcome = try pipeline.configureUpgradableHTTPServerPipeline(configuration: configuration)
            // Behind the upgrade handler, which replays the first request to it once it decided
            // not to upgrade; it leaves the pipeline when the connection becomes a socket.
            try pipeline.addHandler(connectionGuard)
            try pipeline.addHandler(sniffer, position: .first)
            FirstRequestDeadline.arm(on: channel, seconds: limits.idleTimeoutSeconds, until: outcome)
            return Value(outcome: outcome, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.outcome.get() {
            case .http(let http, refusal: nil):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .http(let http, refusal: let refusal?):
                await LiveRefusal.write(refusal, to: http, logger: logger)
            case .socket(let socket, let admission):
                await gate?.run(socket, admission: admission, logger: logger)
            }
        } catch {
            logger.debug("The connection ended before its first request was read", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}

/// Closes a connection that has not sent a complete first request head in time. After the first
/// head, the HTTP side's idle timeout or the socket's pings take over.
enum FirstRequestDeadline {
    static func arm<Outcome>(on channel: any Channel, seconds: Int64, until decided: EventLoopFuture<Outcome>) {
        let timer = channel.eventLoop.assumeIsolated().scheduleTask(in: .seconds(seconds)) {
            channel.close(promise: nil)
        }
        decided.assumeIsolated().whenComplete { _ in timer.cancel() }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Vouch's connection limits, and the live channel's WebSocket when `gate` is given.
    static func guardedHTTP1(limits: ConnectionLimits, gate: LiveGate?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits, gate: gate) }
    }
}
