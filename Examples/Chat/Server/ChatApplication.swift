import ChatWire
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import VouchResourceServer
import VouchResourceServerHummingbird

/// A request to the chat server: Hummingbird's storage, the user Vouch's access token named, and
/// the WebSocket handler a room's upgrade installs.
struct ChatRequestContext: VouchAuthenticatedRequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    var vouchUser: VerifiedAccessToken?
    let webSocket: WebSocketHandlerReference<ChatRequestContext>

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
    }
}

/// The chat server: `GET /rooms/<room>` upgrades to a room's WebSocket for a valid Vouch access
/// token (checked offline), `GET /health` answers 200 once Vouch's keys are in hand and its
/// stream of endings is followed.
enum ChatApplication {
    struct Settings: Sendable {
        var host: String
        var port: Int
        var vouchURL: URL
        var audience: String
        var credential: String
        var reauthenticationWindow: Duration
        var capacity: ChatHub.Capacity
        /// How long a connection may send nothing before it is closed.
        var idleTimeout: Duration
        var events: EventLine
    }

    static func make(_ settings: Settings, logger: Logger) -> some ApplicationProtocol {
        let verifier = AccessTokenVerifier(issuer: settings.vouchURL.absoluteString, audience: settings.audience, logger: logger)
        let follower = SessionEndingsFollower(
            vouchURL: settings.vouchURL, credential: settings.credential, endings: verifier.endings, logger: logger)
        let hub = ChatHub(
            verifier: verifier, window: settings.reauthenticationWindow, capacity: settings.capacity, events: settings.events)

        let router = Router(context: ChatRequestContext.self)
        router.get("/health") { _, _ -> HTTPResponse.Status in
            verifier.keySetStatus.fetchedAt != nil && follower.isConnected ? .ok : .serviceUnavailable
        }
        router.group("rooms")
            .add(middleware: VouchAccessTokenMiddleware(verifier: verifier))
            .ws(
                ":room",
                shouldUpgrade: { _, context in
                    guard let room = context.parameters.get("room"), RoomName.isValid(room) else {
                        throw HTTPError(.badRequest, message: "a room is 1…32 of a-z, 0-9, - and _")
                    }
                    return .upgrade([:])
                },
                onUpgrade: { inbound, outbound, context in
                    guard let token = context.requestContext.vouchUser, let room = context.requestContext.parameters.get("room") else { return }
                    await RoomSocket.serve(inbound: inbound, outbound: outbound, token: token, room: room, hub: hub)
                })

        var app = Application(
            router: router,
            server: .init { [webSocketResponder = router.buildResponder()] responder in
                IdleBoundedChannel(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder,
                        configuration: .init(
                            ws: .init(
                                maxFrameSize: ChatLimits.maximumFrameBytes, autoPing: .enabled(timePeriod: settings.idleTimeout / 2)))),
                    idleTimeout: .nanoseconds(Int64(settings.idleTimeout / .nanoseconds(1))))
            },
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "vouch-chat-example"),
            onServerRunning: { channel in
                settings.events.print("chat", "listening on ws://\(settings.host):\(channel.localAddress?.port ?? settings.port)/rooms/<room>")
            },
            logger: logger)
        app.addServices(SessionEndingsService(follower), HubWatch(hub: hub, verifier: verifier, events: settings.events))
        return app
    }
}
