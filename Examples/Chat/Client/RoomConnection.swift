import ChatWire
import Foundation
import HTTPTypes
import Logging
import NIOWebSocket
import Synchronization
import WSClient

/// One WebSocket to a room of the chat server, opened with an access token. Frames arrive in
/// order on `frames`, which ends with how the socket closed.
final class RoomConnection: Sendable {
    /// What the socket delivers: a frame of the server's, or its end.
    enum Event: Sendable {
        case frame(ServerFrame)
        case closed(code: Int?, reason: String)
    }

    let frames: AsyncStream<Event>
    private let writer = Mutex<WebSocketOutboundWriter?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init(frames: AsyncStream<Event>) { self.frames = frames }

    /// Opens `url` with `Authorization: Bearer <token>`; returns once the socket is open, or throws
    /// when the server refused the upgrade (a token it does not accept) or could not be reached.
    static func open(url: URL, token: String) async throws -> RoomConnection {
        let (frames, events) = AsyncStream<Event>.makeStream()
        let connection = RoomConnection(frames: frames)
        let opened = AsyncStream<Result<Void, any Error>>.makeStream()
        var headers = HTTPFields()
        headers[.authorization] = "Bearer \(token)"
        let logger = Logger(label: "chat-client.room", factory: { _ in SwiftLogNoOpLogHandler() })
        let task = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url.absoluteString,
                    configuration: .init(maxFrameSize: ChatLimits.maximumFrameBytes, additionalHeaders: headers, closeTimeout: .seconds(2)),
                    logger: logger
                ) { inbound, outbound, _ in
                    connection.writer.withLock { $0 = outbound }
                    opened.continuation.yield(.success(()))
                    for try await message in inbound.messages(maxSize: ChatLimits.maximumFrameBytes) {
                        guard case .text(let text) = message, let frame = ChatJSON.decode(ServerFrame.self, text) else { continue }
                        events.yield(.frame(frame))
                    }
                }
                events.yield(.closed(code: close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, reason: close?.reason ?? ""))
            } catch {
                events.yield(.closed(code: nil, reason: "\(error)"))
                opened.continuation.yield(.failure(error))
            }
            connection.writer.withLock { $0 = nil }
            events.finish()
            opened.continuation.finish()
        }
        connection.task.withLock { $0 = task }
        var results = opened.stream.makeAsyncIterator()
        switch await results.next() {
        case .success?: return connection
        case .failure(let error)?: throw error
        case nil: throw CancellationError()
        }
    }

    func send(_ frame: ClientFrame) async throws {
        guard let writer = writer.withLock({ $0 }) else { throw CancellationError() }
        try await writer.write(.text(ChatJSON.encode(frame)))
    }

    /// Closes the socket (1000); `frames` ends.
    func close() async {
        if let writer = writer.withLock({ $0 }) {
            try? await writer.close(.normalClosure, reason: "bye")
        } else {
            task.withLock { $0 }?.cancel()
        }
    }
}
