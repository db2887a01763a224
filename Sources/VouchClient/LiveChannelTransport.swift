import Foundation

/// Opens the live channel's WebSocket (PROTOCOL §8.15), so that the client's logic does not depend
/// on one socket library: the default is `URLSessionWebSocketTask`, which some platforms lack
/// (FoundationNetworking over a libcurl without WebSockets), and an app may bring its own.
///
/// The client opens one connection at a time and reads it from one task; it may call `send` and
/// `close` from others.
public protocol LiveChannelTransport: Sendable {
    /// Opens a WebSocket. The connection may also fail later, from its first `receive()`: a
    /// transport that cannot tell whether the upgrade succeeded before it reads need not wait.
    ///
    /// - Parameters:
    ///   - url: the channel's address, `wss://…/sessions/live` (`ws://` to this device only).
    ///   - headers: request headers for the upgrade: the session's `Authorization`.
    ///   - subprotocols: the subprotocols to offer, in order (`vouch.live.v1`).
    /// - Returns: the open connection.
    /// - Throws: a ``LiveChannelTransportError`` (any other error counts as a network failure).
    func connect(to url: URL, headers: [String: String], subprotocols: [String]) async throws -> any LiveChannelConnection
}

/// One open WebSocket of a ``LiveChannelTransport``.
public protocol LiveChannelConnection: Sendable {
    /// Sends one text frame.
    ///
    /// - Parameter text: the frame's text, one JSON object.
    func send(_ text: String) async throws
    /// The next message: a text frame, or the close that ended the connection (after which the
    /// client calls `receive()` no more). Binary frames are the transport's to drop.
    ///
    /// - Throws: a ``LiveChannelTransportError`` when the connection failed without a close frame.
    func receive() async throws -> LiveChannelMessage
    /// Closes the connection; pending and later `receive()` calls end. Safe to call more than once.
    ///
    /// - Parameters:
    ///   - code: the close code (1000 when the client is done with the session).
    ///   - reason: the close frame's reason text.
    func close(code: Int, reason: String) async
}

/// What a ``LiveChannelConnection`` received.
public enum LiveChannelMessage: Sendable, Equatable {
    /// A text frame.
    case text(String)
    /// The server closed the connection with `code` (PROTOCOL §8.15's table) and `reason`.
    case closed(code: Int, reason: String)
}

/// Why a ``LiveChannelTransport`` could not open or keep a connection. The client decides by it
/// whether to try again: never after `unsupported`, later after the others.
public enum LiveChannelTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// This transport cannot open WebSockets here (FoundationNetworking on a libcurl without
    /// them): the client stops trying and works over HTTP alone.
    case unsupported(String)
    /// The server answered the upgrade with an HTTP status instead of a socket: 401 for a session
    /// it no longer accepts, 404 from a server without the channel, 429 for too many sockets;
    /// nil when the transport does not say which.
    case refused(status: Int?)
    /// The network failed, or the connection broke without a close frame.
    case failed(String)

    public var description: String {
        switch self {
        case .unsupported(let message): "WebSockets are unavailable: \(message)"
        case .refused(let status?): "the server refused the WebSocket upgrade with HTTP \(status)"
        case .refused(nil): "the server refused the WebSocket upgrade"
        case .failed(let message): "the connection failed: \(message)"
        }
    }
}
