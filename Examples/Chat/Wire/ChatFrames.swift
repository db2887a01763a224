// What the example chat server and its terminal client say to each other over the room's
// WebSocket: one JSON object per text frame, told apart by `type`.
import Foundation

/// One message of a room, as the server keeps and sends it.
public struct ChatMessage: Codable, Sendable, Equatable {
    public var from: String
    public var text: String
    /// Unix seconds, the server's clock.
    public var at: Double

    public init(from: String, text: String, at: Double) {
        self.from = from
        self.text = text
        self.at = at
    }
}

/// What the client sends.
public struct ClientFrame: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// `text`: a message for the room.
        case say
        /// `access_token`: a fresh token for the same user, when the server asked for one
        /// (`reauthenticate`) or before the current one expires.
        case token
    }

    public var type: Kind
    public var text: String?
    public var accessToken: String?

    public static func say(_ text: String) -> Self { Self(type: .say, text: text) }
    public static func token(_ token: String) -> Self { Self(type: .token, accessToken: token) }

    enum CodingKeys: String, CodingKey {
        case type, text
        case accessToken = "access_token"
    }
}

/// What the server sends.
public struct ServerFrame: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// `room`, `user`, `members`, `history`: the socket joined.
        case welcome
        /// `message`: someone said something in the room.
        case message
        /// `user`, `event` (`joined` or `left`), `reason`: a user's first socket joined, or last left.
        case presence
        /// `reason`, `within_seconds`: this socket's session ended or its token expired; nothing is
        /// delivered to it or accepted from it until a fresh token arrives, and it is closed if
        /// none does in time.
        case reauthenticate
        /// The fresh token was accepted: what was held back follows.
        case resumed
        /// `reason`: a frame was refused; the socket stays open.
        case error
    }

    public var type: Kind
    public var room: String?
    public var user: String?
    public var members: [String]?
    public var history: [ChatMessage]?
    public var message: ChatMessage?
    public var event: String?
    public var reason: String?
    public var withinSeconds: Double?

    public init(
        type: Kind, room: String? = nil, user: String? = nil, members: [String]? = nil, history: [ChatMessage]? = nil,
        message: ChatMessage? = nil, event: String? = nil, reason: String? = nil, withinSeconds: Double? = nil
    ) {
        self.type = type
        self.room = room
        self.user = user
        self.members = members
        self.history = history
        self.message = message
        self.event = event
        self.reason = reason
        self.withinSeconds = withinSeconds
    }

    enum CodingKeys: String, CodingKey {
        case type, room, user, members, history, message, event, reason
        case withinSeconds = "within_seconds"
    }
}

/// The close codes the server ends a room's socket with (4000–4999 are the application's).
public enum ChatCloseCode {
    /// The session ended for good (suspended, signed out): the client signs in again or stops.
    public static let sessionEnded = 4001
    /// No fresh token arrived within the window after `reauthenticate`.
    public static let reauthenticationTimedOut = 4002
    /// The fresh token named another user or app.
    public static let wrongUser = 4003
    /// The socket did not read its frames fast enough.
    public static let tooSlow = 4008
    /// The user already has as many sockets open as the server allows one user.
    public static let tooManySockets = 4009
    /// The server holds as many sockets as it allows: RFC 6455's "try again later".
    public static let full = 1013
}

/// The limits both sides hold to.
public enum ChatLimits {
    /// The longest frame, in bytes.
    public static let maximumFrameBytes = 16 * 1024
    /// The longest message text, in bytes.
    public static let maximumTextBytes = 2000
    /// Messages a room keeps and sends on joining.
    public static let history = 50
    /// Frames a socket may send a second, on average; past it and its burst, frames are dropped
    /// unread, with one `error` frame to say so.
    public static let framesPerSecond = 20
    /// Frames a socket may send at once.
    public static let frameBurst = 40
}

/// JSON as both sides write it.
public enum ChatJSON {
    public static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    public static func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
