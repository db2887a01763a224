import Foundation
import VouchProtocol

/// A frame the server sends on the live channel (PROTOCOL §8.15). Members the client does not
/// know are ignored, and so is a frame of a type it does not know: a newer server may send more.
enum LiveServerFrame: Sendable, Equatable {
    /// The socket is open and watched.
    case ready(sessionID: String?)
    /// The socket's session ended; answer it with an `authenticate` frame when `answerable`.
    case challenge(LiveChallenge)
    /// The user signed this device out; the socket closes with 4004.
    case signedOut
    /// An `authenticate` frame succeeded: the socket follows this new session.
    case authenticated(SessionResponse)
    /// A frame was refused, with the status the same refusal has on `POST /sessions`.
    case error(status: Int, body: ErrorBody?)
    /// Not one JSON object with a `type`, or a type this client does not know.
    case ignored

    init(_ text: String) {
        let data = Data(text.utf8)
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
            self = .ignored
            return
        }
        switch envelope.type {
        case "ready":
            self = .ready(sessionID: envelope.sessionID)
        case "challenge":
            self = .challenge(
                LiveChallenge(
                    reason: envelope.reason.flatMap(ChallengeReason.init(rawValue:)) ?? .sessionUnknown,
                    nonce: envelope.nonce, detail: envelope.detail,
                    answerAfterMilliseconds: max(0, envelope.answerAfterMilliseconds ?? 0),
                    answerable: envelope.answerable ?? (envelope.nonce != nil)))
        case "signed_out":
            self = .signedOut
        case "authenticated":
            guard let session = try? JSONDecoder().decode(SessionResponse.self, from: data) else {
                self = .ignored
                return
            }
            self = .authenticated(session)
        case "error":
            self = .error(status: envelope.status ?? 0, body: envelope.error)
        default:
            self = .ignored
        }
    }

    /// Every member any frame has, each optional.
    private struct Envelope: Decodable {
        var type: String
        var sessionID: String?
        var reason: String?
        var nonce: String?
        var detail: String?
        var answerAfterMilliseconds: Int?
        var answerable: Bool?
        var status: Int?
        var error: ErrorBody?

        enum CodingKeys: String, CodingKey {
            case type, reason, nonce, detail, answerable, status, error
            case sessionID = "session_id"
            case answerAfterMilliseconds = "answer_after_ms"
        }
    }
}

/// A `challenge` frame's members.
struct LiveChallenge: Sendable, Equatable {
    var reason: ChallengeReason
    /// Bound to the session's app; nil when the challenge cannot be answered.
    var nonce: String?
    /// A cutoff's reason.
    var detail: String?
    /// How long to wait before asking the app's backend, so that a cutoff's answers are spread.
    var answerAfterMilliseconds: Int
    /// False for a suspension: the client deauthenticates instead.
    var answerable: Bool
}

/// The one frame a client sends: the answer to a pending challenge.
struct LiveAuthenticateFrame: Encodable {
    let type = "authenticate"
    var identityToken: String
    /// Omitted when nil: the new session keeps the old one's device.
    var device: DeviceDescription?

    enum CodingKeys: String, CodingKey {
        case type, device
        case identityToken = "identity_token"
    }

    var text: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }
}
