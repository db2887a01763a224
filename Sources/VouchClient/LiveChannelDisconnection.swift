import Foundation

/// Why the live channel is not open, and whether the client opens it again
/// (``VouchClientEvent/liveChannelDisconnected(_:)``): enough for an app to show "live", "reconnecting
/// in 4 s" or "updates by polling only", and for a log to say why.
public struct LiveChannelDisconnection: Sendable, Equatable, CustomStringConvertible {
    /// What ended the channel or kept it from opening. A struct rather than an enum, as
    /// ``DeauthenticationReason``: compare with the static members, in a `switch` with a `default:`.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case closedByServer, failed, unavailable, closedByClient
        }

        fileprivate let base: Base

        public var description: String { base.rawValue }

        /// The server closed the socket: ``LiveChannelDisconnection/closeCode`` says why
        /// (PROTOCOL §8.15), 1012 when the server is restarting.
        public static let closedByServer = Self(base: .closedByServer)
        /// The socket could not be opened or broke without a close: the network, or the server
        /// refused the upgrade (too many sockets, a session it no longer accepts).
        public static let failed = Self(base: .failed)
        /// The channel cannot be had here: the transport has no WebSockets (FoundationNetworking
        /// over a libcurl without them) or the server has no live channel. The client does not
        /// try again; challenges still arrive as 401s on requests.
        public static let unavailable = Self(base: .unavailable)
        /// The client closed it: the user was signed out, or the session was replaced by one
        /// opened over HTTP (the channel then reopens at once with the new one).
        public static let closedByClient = Self(base: .closedByClient)
    }

    public let reason: Reason
    /// The WebSocket close code, when the server closed the socket.
    public let closeCode: Int?
    /// The cause in words, for a log.
    public let message: String
    /// When the client opens the channel again, in seconds from now (backoff with jitter, or a
    /// random 0…5 s after a server restart); nil when it does not.
    public let reconnectDelaySeconds: Double?

    init(_ reason: Reason, closeCode: Int? = nil, message: String, reconnectDelaySeconds: Double?) {
        self.reason = reason
        self.closeCode = closeCode
        self.message = message
        self.reconnectDelaySeconds = reconnectDelaySeconds
    }

    public var description: String {
        let code = closeCode.map { " (\($0))" } ?? ""
        let next = reconnectDelaySeconds.map { String(format: "; reconnecting in %.1f s", $0) } ?? ""
        return "\(reason)\(code): \(message)\(next)"
    }
}
