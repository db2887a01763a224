import HummingbirdCore
import Logging
import NIOCore

/// A connection's channel as `inner` sets it up, closed once nothing has arrived on it for
/// `idleTimeout`: a client that connects and says nothing, or goes silent mid-request, holds
/// nothing for long. A live room socket is never idle that long, since the server pings it twice
/// as often and its pong arrives.
///
/// hummingbird-websocket bounds a connection's idleness only once it has refused an upgrade; the
/// handler here sits first in the pipeline, before the upgrade is negotiated, and stays.
struct IdleBoundedChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandlers(IdleStateHandler(readTimeout: idleTimeout), IdleCloser())
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Ends the connection when `IdleStateHandler` says nothing was read in time, the way a client
/// that went away would: its input is said to be closed, which an upgrade being negotiated and a
/// room socket each take as the end of the client (a plain close would be an error of the
/// server's to hummingbird-websocket), and the channel is closed a moment later if still open.
private final class IdleCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case IdleStateHandler.IdleStateEvent.read = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
    }
}
