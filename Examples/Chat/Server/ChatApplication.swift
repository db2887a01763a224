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
        var events: EventLine
    }

    static func make(_ settings: Settings, logger: Logger) -> some ApplicationProtocol {
        let verifier = AccessTokenVerifier(issuer: settings.vouchURL.absoluteString, audience: settings.audience, logger: logger)
        let follower = SessionEndingsFollower(
            vouchURL: settings.vouchURL, credential: settings.credential, endings: verifier.endings, logger: logger)
        let hub = ChatHub(verifier: verifier, window: settings.reauthenticationWindow, events: settings.events)

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
                    let (outbox, continuation) = AsyncStream<ChatHub.Outgoing>.makeStream(bufferingPolicy: .bufferingOldest(512))
                    let id = await hub.join(room: room, token: token, outbox: continuation)
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        // The writer: frames in order, until the hub closes the socket or leaves it.
                        group.addTask {
                            for await item in outbox {
                                switch item {
                                case .frame(let text): try await outbound.write(.text(text))
                                case .close(let code, let reason):
                                    try await outbound.close(.init(codeNumber: code), reason: reason)
                                    return
                                }
                            }
                        }
                        group.addTask {
                            for try await message in inbound.messages(maxSize: ChatLimits.maximumFrameBytes) {
                                if case .text(let text) = message { await hub.received(text, from: id) }
                            }
                        }
                        defer { group.cancelAll() }
                        do {
                            try await group.next()
                        } catch {
                            await hub.leave(id, reason: "connection failed")
                            throw error
                        }
                    }
                    await hub.leave(id, reason: "disconnected")
                })

        var app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(ws: .init(maxFrameSize: ChatLimits.maximumFrameBytes))),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "vouch-chat-example"),
            onServerRunning: { channel in
                settings.events.print("chat", "listening on ws://\(settings.host):\(channel.localAddress?.port ?? settings.port)/rooms/<room>")
            },
            logger: logger)
        app.addServices(SessionEndingsService(follower), HubWatch(hub: hub, verifier: verifier, events: settings.events))
        return app
    }
}

/// Room names: short, and safe to print and to put in a path.
enum RoomName {
    static func isValid(_ name: String) -> Bool {
        (1...32).contains(name.utf8.count)
            && name.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F }
    }
}

/// Fetches Vouch's keys at start (the server is ready once it has them), hands the hub each
/// ending the stream applied, and sweeps the hub four times a second for expired tokens and fresh
/// tokens that did not come.
struct HubWatch: Service {
    let hub: ChatHub
    let verifier: AccessTokenVerifier
    let events: EventLine

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while !Task.isCancelled, (try? await verifier.refreshKeys()) == nil {
                        try? await Task.sleep(for: .seconds(1))
                    }
                }
                group.addTask {
                    for await ending in verifier.endings.applied() {
                        let whom = ending.userID.map { "\($0)'s" } ?? "an \(ending.scope.rawValue)'s"
                        events.print("vouch", "\(whom) sessions ended (\(ending.kind.rawValue), \(ending.scope.rawValue))")
                        await hub.endingApplied(ending)
                    }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(250))
                        await hub.sweep()
                    }
                }
            }
        }
    }
}
