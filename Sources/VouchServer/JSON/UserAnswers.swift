import VouchProtocol
import VouchStore

/// The `201` of `POST /sessions` (PROTOCOL §3, `SessionResponse`), written from the user's record
/// as the store returned it rather than from an `Identity` built first: that copied every string
/// of a record the store's caches share with every other request for the user.
struct SignedInSession: JSONBodyWritable {
    let sessionToken: String
    let sessionID: String
    let expiresAt: String
    let user: UserRecord

    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member("expires_at", expiresAt)
            object.member("session_id", sessionID)
            object.member("session_token", sessionToken)
            object.member("user", identityOf: user)
        }
    }

    /// The protocol's type, for `JSONEncoder` (a test holds the two bodies equal byte for byte).
    var response: SessionResponse {
        SessionResponse(sessionToken: sessionToken, expiresAt: expiresAt, user: user.identity, sessionID: sessionID)
    }

    func encode(to encoder: any Encoder) throws { try response.encode(to: encoder) }
}

/// The `200` of `GET /users/me` (PROTOCOL §3, `CurrentUserResponse`), written from the session's
/// records in the same way.
struct CurrentUserAnswer: JSONBodyWritable {
    let user: UserRecord
    let sessionCreatedAt: String
    let sessionExpiresAt: String
    let sessionID: String

    func write(to writer: inout JSONBodyWriter) {
        writer.object { object in
            object.member(
                "session",
                CurrentUserResponse.Session(createdAt: sessionCreatedAt, expiresAt: sessionExpiresAt, sessionID: sessionID))
            object.member("user", identityOf: user)
        }
    }

    /// The protocol's type, for `JSONEncoder` (a test holds the two bodies equal byte for byte).
    var response: CurrentUserResponse {
        CurrentUserResponse(
            user: user.identity, session: .init(createdAt: sessionCreatedAt, expiresAt: sessionExpiresAt, sessionID: sessionID))
    }

    func encode(to encoder: any Encoder) throws { try response.encode(to: encoder) }
}
