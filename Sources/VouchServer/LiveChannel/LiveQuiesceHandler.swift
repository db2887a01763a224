import NIOCore
import NIOWebSocket

/// Hears the server's shutdown on a socket's connection (Hummingbird sends every connection
/// `ChannelShouldQuiesceEvent` and waits for it to close) and has the socket closed with 1012, so
/// that its client reconnects to another instance rather than waiting out a timeout.
final class LiveQuiesceHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame

    private let socketID: LiveSocketID
    private let hub: LiveHub

    init(socketID: LiveSocketID, hub: LiveHub) {
        self.socketID = socketID
        self.hub = hub
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            let hub = self.hub
            let socketID = self.socketID
            Task { await hub.close(socketID, with: .serviceRestart) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
