/// `POST /sessions/access-token`'s optional body (PROTOCOL §8.16).
public struct AccessTokenRequest: Codable, Sendable, Equatable {
    /// The app's id (the default) or one of its registered audiences.
    public var audience: String?

    public init(audience: String?) { self.audience = audience }
}

/// `POST /sessions/access-token`'s answer.
public struct AccessTokenResponse: Codable, Sendable, Equatable {
    /// A compact JWS (ES256, `typ` `at+jwt`) for the app's other services.
    public var accessToken: String
    /// RFC 3339, UTC.
    public var expiresAt: String
    public var audience: String
    /// Always `Bearer`.
    public var tokenType: String

    public init(accessToken: String, expiresAt: String, audience: String, tokenType: String = "Bearer") {
        self.accessToken = accessToken
        self.expiresAt = expiresAt
        self.audience = audience
        self.tokenType = tokenType
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresAt = "expires_at"
        case audience
        case tokenType = "token_type"
    }
}
