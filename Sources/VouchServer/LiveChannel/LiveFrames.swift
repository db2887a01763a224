import Foundation
import VouchProtocol

/// The frames the server sends on the live channel (PROTOCOL §8.15), each one JSON object in a
/// text frame, written in the one spelling every answer uses (`JSONResponse`).
enum LiveFrame: Sendable {
    case ready(sessionID: String, expiresAt: String, marginSeconds: Int64)
    case challenge(LiveChallenge)
    case signedOut
    case authenticated(SignedInSession)
    case error(APIError)

    var text: String {
        let encoded: Data?
        switch self {
        case .ready(let sessionID, let expiresAt, let marginSeconds):
            encoded = try? JSONResponse.encoder().encode(
                ReadyFrame(sessionID: sessionID, expiresAt: expiresAt, marginSeconds: marginSeconds))
        case .challenge(let challenge):
            encoded = try? JSONResponse.encoder().encode(challenge)
        case .signedOut:
            encoded = try? JSONResponse.encoder().encode(TypeOnlyFrame(type: "signed_out"))
        case .authenticated(let session):
            encoded = try? JSONResponse.encoder().encode(AuthenticatedFrame(session: session))
        case .error(let error):
            encoded = try? JSONResponse.encoder().encode(ErrorFrame(status: Int(error.status.code), error: error.body))
        }
        return encoded.map { String(decoding: $0, as: UTF8.self) } ?? #"{"type":"error","status":500}"#
    }
}

/// What a challenge frame says: why the session ended, the nonce to sign in with, and when.
struct LiveChallenge: Encodable, Sendable, Equatable {
    var reason: ChallengeReason
    /// `nil` when the challenge cannot be answered (a suspended user).
    var nonce: String?
    var answerWithinSeconds: Int64
    var answerAfterMilliseconds: Int64
    var detail: String?

    var answerable: Bool { nonce != nil }

    enum CodingKeys: String, CodingKey {
        case type, reason, nonce, answerable, detail
        case answerWithinSeconds = "answer_within_seconds"
        case answerAfterMilliseconds = "answer_after_ms"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("challenge", forKey: .type)
        try container.encode(reason.rawValue, forKey: .reason)
        try container.encode(nonce, forKey: .nonce)
        try container.encode(answerWithinSeconds, forKey: .answerWithinSeconds)
        try container.encode(answerAfterMilliseconds, forKey: .answerAfterMilliseconds)
        try container.encode(answerable, forKey: .answerable)
        try container.encodeIfPresent(detail, forKey: .detail)
    }
}

private struct ReadyFrame: Encodable {
    let type = "ready"
    let sessionID: String
    let expiresAt: String
    let marginSeconds: Int64

    enum CodingKeys: String, CodingKey {
        case type
        case sessionID = "session_id"
        case expiresAt = "expires_at"
        case marginSeconds = "margin_seconds"
    }
}

private struct TypeOnlyFrame: Encodable {
    let type: String
}

private struct AuthenticatedFrame: Encodable {
    let session: SignedInSession

    enum CodingKeys: String, CodingKey { case type }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("authenticated", forKey: .type)
        try session.encode(to: encoder)
    }
}

private struct ErrorFrame: Encodable {
    let type = "error"
    let status: Int
    let error: ErrorBody
}

/// A frame a client sends: only `authenticate` means anything (PROTOCOL §8.15).
struct LiveClientFrame: Decodable, Sendable {
    var type: String?
    var identityToken: String?
    var device: DeviceDescription?

    enum CodingKeys: String, CodingKey {
        case type
        case identityToken = "identity_token"
        case device
    }
}
