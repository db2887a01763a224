import ChatWire
import HummingbirdWebSocket
import VouchResourceServer

/// One room's WebSocket, from its upgrade to its end: a writer sends what the hub queues for it,
/// a reader hands the hub each frame, and the hub hears when it is over.
enum RoomSocket {
    static func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, token: VerifiedAccessToken, room: String, hub: ChatHub
    ) async {
        let (outbox, continuation) = AsyncStream<ChatHub.Outgoing>.makeStream(bufferingPolicy: .bufferingOldest(512))
        let id: Int
        switch await hub.join(room: room, token: token, outbox: continuation) {
        case .joined(let joined): id = joined
        case .refused(let code, let reason):
            try? await outbound.close(.init(codeNumber: code), reason: reason)
            return
        }
        // A client that breaks the rules (a frame over the limit, a dropped connection) ends only
        // its own socket, and is no error of the server's.
        let ending = await withThrowingTaskGroup(of: Void.self) { group -> String in
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
                var budget = FrameBudget(perSecond: ChatLimits.framesPerSecond, burst: ChatLimits.frameBurst)
                var toldOverBudget = false
                for try await message in inbound.messages(maxSize: ChatLimits.maximumFrameBytes) {
                    guard budget.take() else {
                        // Said once a flood, not once a frame: the answer must not cost more than the flood.
                        if !toldOverBudget { await hub.overBudget(id) }
                        toldOverBudget = true
                        continue
                    }
                    toldOverBudget = false
                    if case .text(let text) = message { await hub.received(text, from: id) }
                }
            }
            defer { group.cancelAll() }
            do {
                try await group.next()
                return "disconnected"
            } catch {
                return "connection failed"
            }
        }
        await hub.leave(id, reason: ending)
    }
}
