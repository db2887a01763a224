import Foundation
import Synchronization
import VouchClient
import VouchClientWebSocket

/// The SDK's swift-websocket transport (the `URLSessionWebSocketTask` the SDK uses by default
/// needs a libcurl with WebSockets, which this Linux lacks), counting the sockets it opened.
final class WebSocketTransport: LiveChannelTransport {
    private let transport = WebSocketLiveChannelTransport()
    private let opened = Mutex(0)

    /// Sockets opened so far (upgrades that succeeded).
    var openedCount: Int { opened.withLock { $0 } }

    func connect(to url: URL, headers: [String: String], subprotocols: [String]) async throws -> any LiveChannelConnection {
        let connection = try await transport.connect(to: url, headers: headers, subprotocols: subprotocols)
        opened.withLock { $0 += 1 }
        return connection
    }
}
