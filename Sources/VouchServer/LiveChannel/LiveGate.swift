import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import ServiceLifecycle
import VouchProtocol
import VouchStore
@_spi(WSInternal) import WSCore

/// The live channel's door and its sockets' conversation (PROTOCOL §8.15): who may open a socket,
/// and what a socket's frames do.
struct LiveGate: Sendable {
    enum Decision: Sendable {
        case admit(LiveAdmission)
        case refuse(APIError)
        /// Not the live channel's path: the router answers the request.
        case pass
    }

    static let path = "/sessions/live"

    let authenticator: Authenticator
    let hub: LiveHub
    let signIns: SignInRecorder
    let rateLimiter: RateLimiter?
    let trustedProxies: Set<String>

    var store: any Store { authenticator.store }

    // MARK: The door

    /// Decides an upgrade request: the session from `Authorization` (or else a ticket offered as a
    /// subprotocol), live by `SessionStanding`, with a free slot.
    func decide(_ head: HTTPRequestHead, channel: any Channel) async -> Decision {
        guard head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first == Self.path[...] else {
            return .pass
        }
        let offered = OfferedSubprotocols.parse(head.headers)
        let authorization = head.headers["Authorization"]
        do {
            let caller: Authenticator.AuthenticatedSession
            if !authorization.isEmpty {
                caller = try await authenticator.authenticate(authorization: authorization.joined(separator: ", "))
            } else if let ticket = OfferedSubprotocols.ticket(in: offered) {
                caller = try await redeem(ticket)
            } else {
                caller = try await authenticator.authenticate(authorization: nil)
            }
            let session = caller.session
            let margin = try await store.app(id: session.appID)?.challengeMarginSeconds ?? AppRecord.defaultChallengeMarginSeconds
            let socketID = LiveSocketID.next()
            guard await hub.reserve(socketID, sessionID: session.sessionID) else {
                throw APIError(
                    .rateLimitExceeded,
                    "This session already has \(LiveChannelLimits.socketsPerSession) live sockets open; close one first.",
                    data: ["retry_after": .number(JSONNumber(Int64(5)))], headers: [.retryAfter: "5"])
            }
            let hub = self.hub
            channel.closeFuture.whenComplete { _ in Task { await hub.release(socketID) } }
            let forwarded = head.headers["X-Forwarded-For"].joined(separator: ",")
            return .admit(
                LiveAdmission(
                    socketID: socketID, session: session, marginSeconds: margin,
                    subprotocol: offered.contains(LiveChannelLimits.subprotocol[...]) ? LiveChannelLimits.subprotocol : nil,
                    clientIP: ClientAddress.resolve(
                        peer: channel.remoteAddress?.ipAddress, forwardedFor: forwarded.isEmpty ? nil : forwarded,
                        trustedProxies: trustedProxies)))
        } catch let error as APIError {
            return .refuse(error)
        } catch {
            return .refuse(.storeUnavailable)
        }
    }

    private func redeem(_ ticket: Substring) async throws -> Authenticator.AuthenticatedSession {
        let hash = Array(SHA256.hash(data: Array(ticket.utf8)))
        guard ticket.utf8.count <= 64,
            let tokenHash = try await store.consumeLiveTicket(hash: hash, now: authenticator.clock())
        else {
            throw authenticator.challenge(.missingCredentials, detail: "The live ticket is unknown, used or expired: ask for a new one.")
        }
        return try await authenticator.authenticate(tokenHash: tokenHash)
    }

    // MARK: A socket's life

    /// Runs one admitted socket until it closes: the hub's frames out, the client's frames in.
    ///
    /// When the server shuts down, the socket is closed with 1012 (reconnect elsewhere), not the
    /// 1000 WSCore's handler sends when it hears the shutdown itself: it runs in a task of its own
    /// that does not inherit the shutdown signal, and this task relays cancellation to it.
    func run(_ socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, admission: LiveAdmission, logger: Logger) async {
        let conversation = Task.detached { await converse(socket, admission: admission, logger: logger) }
        let hub = self.hub
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await conversation.value
            } onGracefulShutdown: {
                Task { await hub.close(admission.socketID, with: .serviceRestart) }
            }
        } onCancel: {
            conversation.cancel()
        }
        await hub.release(admission.socketID)
    }

    private func converse(_ socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, admission: LiveAdmission, logger: Logger) async {
        let (outbox, continuation) = AsyncStream.makeStream(of: LiveOutbound.self)
        let configuration = WebSocketHandler.Configuration(
            extensions: [], autoPing: .enabled(timePeriod: LiveChannelLimits.pingInterval),
            closeTimeout: LiveChannelLimits.closeTimeout, validateUTF8: true,
            maxFrameSize: LiveChannelLimits.maximumFrameBytes)
        do {
            _ = try await WebSocketHandler.handle(
                type: .server, configuration: configuration, asyncChannel: socket, context: LiveSocketContext(logger: logger)
            ) { inbound, outbound, _ in
                guard
                    await hub.attach(
                        admission.socketID, session: admission.session, marginSeconds: admission.marginSeconds, outbox: continuation)
                else {
                    try await outbound.close(LiveCloseCode.serviceRestart.code, reason: LiveCloseCode.serviceRestart.reason)
                    return
                }
                // An ending that committed between the admission's look-up and the attachment.
                await hub.recheck([admission.socketID])
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await item in outbox {
                            switch item {
                            case .frame(let frame): try await outbound.write(.text(frame.text))
                            case .close(let code):
                                try await outbound.close(code.code, reason: code.reason)
                                return
                            }
                        }
                    }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: LiveChannelLimits.maximumFrameBytes) {
                            switch message {
                            case .text(let text):
                                if let refusal = await receive(text, admission: admission) {
                                    try await outbound.write(.text(LiveFrame.error(refusal).text))
                                }
                            case .binary:
                                await hub.close(admission.socketID, with: .unsupportedData)
                            }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("A live socket ended with an error", metadata: ["error.type": "\(type(of: error))"])
        }
        continuation.finish()
    }

    /// One client frame. Returns the refusal to send at once, or `nil` when the hub answers
    /// (an `authenticate`'s outcome goes out in order with the hub's other frames).
    private func receive(_ text: String, admission: LiveAdmission) async -> APIError? {
        let frame: LiveClientFrame
        do {
            frame = try RequestBodyReader.decode(LiveClientFrame.self, json: ByteBuffer(string: text))
        } catch let error as APIError {
            return error
        } catch {
            return APIError(.invalidRequest, "The frame is not a valid JSON object.")
        }
        guard frame.type == "authenticate" else {
            return APIError(.invalidRequest, "The only frame a client sends is {\"type\": \"authenticate\", \"identity_token\"}.")
        }
        guard let token = frame.identityToken else { return APIError.missingProperty("identity_token") }
        switch await hub.beginAnswer(admission.socketID) {
        case .refused(let error):
            return error
        case .start(let appID, let device):
            await answer(token, appID: appID, device: device, frameDevice: frame.device, admission: admission)
            return nil
        }
    }

    /// Signs in exactly as `POST /sessions` does for the socket's app, and hands the outcome to the hub.
    private func answer(
        _ token: String, appID: UUID, device: DeviceDescription?, frameDevice: DeviceDescription?, admission: LiveAdmission
    ) async {
        do {
            if let rateLimiter, let wait = rateLimiter.acquire(client: admission.clientIP) {
                throw APIError(
                    .rateLimitExceeded, "Too many requests; retry after \(wait) s.",
                    data: ["retry_after": .number(JSONNumber(Int64(wait)))])
            }
            let chosenDevice = try frameDevice.map(ClientRoutes.validated) ?? device
            let outcome = try await authenticator.signIn(identityToken: token, appID: appID, device: chosenDevice)
            signIns.record(outcome, appID: appID)
            switch outcome {
            case .refused(let rejection, let serverTime):
                await hub.failAnswer(admission.socketID, error: .rejectedToken(rejection, serverTime: serverTime))
            case .signedIn(let signedIn):
                guard let lookup = try await store.sessionLookup(tokenHash: SessionToken.storageKey(signedIn.sessionToken)) else {
                    throw APIError.storeUnavailable
                }
                await hub.finishAnswer(admission.socketID, session: lookup.session, signedIn: signedIn)
            }
        } catch let error as APIError {
            signIns.recordRefusal(error)
            await hub.failAnswer(admission.socketID, error: error)
        } catch {
            signIns.recordRefusal(error)
            await hub.failAnswer(admission.socketID, error: .storeUnavailable)
        }
    }
}

/// What WSCore hands a socket's handler: its logger.
struct LiveSocketContext: WebSocketContext {
    let logger: Logger
}
