import NIOWebSocket

/// How the server ends a socket, and what it tells the client to do next (PROTOCOL §8.15).
enum LiveCloseCode: Sendable, Equatable {
    /// The server is shutting down: reconnect, to any instance, after a random pause.
    case serviceRestart
    /// The challenge's margin ran out.
    case challengeUnanswered
    /// The user is suspended.
    case userSuspended
    /// The user signed this device out.
    case signedOut
    /// The client sent a binary frame.
    case unsupportedData

    var code: WebSocketErrorCode {
        switch self {
        case .serviceRestart: .unknown(1012)
        case .challengeUnanswered: .unknown(4001)
        case .userSuspended: .unknown(4003)
        case .signedOut: .unknown(4004)
        case .unsupportedData: .unacceptableData
        }
    }

    var reason: String? {
        switch self {
        case .serviceRestart: "service_restart"
        case .challengeUnanswered: "challenge_unanswered"
        case .userSuspended: "user_suspended"
        case .signedOut: "signed_out"
        case .unsupportedData: nil
        }
    }
}
