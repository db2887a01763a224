import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel with Vouch's connection rules added where they can see the wire:
/// an idle timeout, a request timeout, head limits, and closing after a final response
/// (see `ConnectionGuard`).
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let limits: ConnectionLimits

    init(responder: @escaping HTTPChannelHandler.Responder, limits: ConnectionLimits) {
        self.limits = limits
        self.inner = HTTP1Channel(
            responder: responder,
            configuration: .init(
                idleTimeout: .seconds(limits.idleTimeoutSeconds),
                httpDecoderConfiguration: .init(
                    // One limit for the target, each header name and each value.
                    maxHeaderFieldSize: ConnectionLimits.maximumHeaderFieldBytes,
                    maxHeaderListSize: ConnectionLimits.maximumHeaderBytes,
                    maxHeaderFieldCount: ConnectionLimits.maximumHeaderCount)))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let requestTimeout = TimeAmount.seconds(limits.requestTimeoutSeconds)
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            let sniffer = RequestLineSniffer(longLine: ConnectionLimits.maximumURIBytes)
            try pipeline.addHandler(sniffer, position: .first)
            try pipeline.addHandler(ConnectionGuard(requestTimeout: requestTimeout, sniffer: sniffer), position: .before(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Vouch's connection limits.
    static func guardedHTTP1(limits: ConnectionLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, limits: limits) }
    }
}
