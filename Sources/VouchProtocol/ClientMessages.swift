/// Bodies of the client API (PROTOCOL §3), shared by the server and the SDK.

/// The optional body of `POST /nonces`: with `app_id`, the nonce admits a sign-in to that app only.
public struct CreateNonceRequest: Codable, Sendable, Equatable {
    public var appID: String?

    public init(appID: String? = nil) { self.appID = appID }

    enum CodingKeys: String, CodingKey {
        case appID = "app_id"
    }
}

/// `201` of `POST /nonces`, and the nonce inside an authentication challenge.
public struct NonceResponse: Codable, Sendable, Equatable {
    public var nonce: String
    /// RFC 3339 UTC.
    public var expiresAt: String

    public init(nonce: String, expiresAt: String) {
        self.nonce = nonce
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case nonce
        case expiresAt = "expires_at"
    }
}

/// `POST /sessions` body. Both fields are optional here so that a missing one is answered with
/// `missing_property` naming it, rather than a generic decoding error.
public struct CreateSessionRequest: Codable, Sendable, Equatable {
    public var identityToken: String?
    public var appID: String?
    /// The device the session will be used on, shown to the user among their sessions.
    public var device: DeviceDescription?

    public init(identityToken: String?, appID: String?, device: DeviceDescription? = nil) {
        self.identityToken = identityToken
        self.appID = appID
        self.device = device
    }

    enum CodingKeys: String, CodingKey {
        case identityToken = "identity_token"
        case appID = "app_id"
        case device
    }
}

/// A user as the API shows them (`<identity>` of PROTOCOL §3); absent fields are `null`.
public struct Identity: Codable, Sendable, Equatable {
    /// `layer:///identities/<percent-escaped user id>`.
    public var id: String
    public var userID: String
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var avatarURL: String?

    public init(
        userID: String, displayName: String? = nil, firstName: String? = nil,
        lastName: String? = nil, avatarURL: String? = nil
    ) {
        self.id = LayerID.identity(userID)
        self.userID = userID
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
        self.avatarURL = avatarURL
    }

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id"
        case displayName = "display_name"
        case firstName = "first_name"
        case lastName = "last_name"
        case avatarURL = "avatar_url"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        userID = try container.decode(String.self, forKey: .userID)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        firstName = try container.decodeIfPresent(String.self, forKey: .firstName)
        lastName = try container.decodeIfPresent(String.self, forKey: .lastName)
        avatarURL = try container.decodeIfPresent(String.self, forKey: .avatarURL)
    }

    /// Writes `null` for absent fields (the protocol shows every field, always).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(userID, forKey: .userID)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(firstName, forKey: .firstName)
        try container.encode(lastName, forKey: .lastName)
        try container.encode(avatarURL, forKey: .avatarURL)
    }
}

/// `201` of `POST /sessions`.
public struct SessionResponse: Codable, Sendable, Equatable {
    public var sessionToken: String
    /// The session's public id (`GET /sessions` names it); absent from servers before devices.
    public var sessionID: String?
    public var expiresAt: String
    public var user: Identity

    public init(sessionToken: String, expiresAt: String, user: Identity, sessionID: String? = nil) {
        self.sessionToken = sessionToken
        self.sessionID = sessionID
        self.expiresAt = expiresAt
        self.user = user
    }

    enum CodingKeys: String, CodingKey {
        case sessionToken = "session_token"
        case sessionID = "session_id"
        case expiresAt = "expires_at"
        case user
    }
}

/// `200` of `GET /users/me`.
public struct CurrentUserResponse: Codable, Sendable, Equatable {
    public struct Session: Codable, Sendable, Equatable {
        public var createdAt: String
        public var expiresAt: String
        /// The session's public id; absent from servers before devices.
        public var sessionID: String?

        public init(createdAt: String, expiresAt: String, sessionID: String? = nil) {
            self.createdAt = createdAt
            self.expiresAt = expiresAt
            self.sessionID = sessionID
        }

        enum CodingKeys: String, CodingKey {
            case createdAt = "created_at"
            case expiresAt = "expires_at"
            case sessionID = "session_id"
        }
    }

    public var user: Identity
    public var session: Session

    public init(user: Identity, session: Session) {
        self.user = user
        self.session = session
    }
}

/// `data.reason` of the authentication challenge (401), so that an SDK knows whether to sign in
/// again silently (expired, revoked) or to tell the user (suspended).
public enum ChallengeReason: String, Codable, Sendable, CaseIterable {
    case sessionExpired = "session_expired"
    case sessionRevoked = "session_revoked"
    /// The user signed this device out from another one: forget the user, do not sign in again.
    case sessionSignedOut = "session_signed_out"
    case sessionUnknown = "session_unknown"
    case userSuspended = "user_suspended"
    case missingCredentials = "missing_credentials"
}

/// `GET /health`.
public struct HealthResponse: Codable, Sendable, Equatable {
    public var status: String
    public init(status: String) { self.status = status }
}
