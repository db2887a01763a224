/// `POST /admin/apps/<app>/webhooks` (PROTOCOL §8.17).
public struct CreateWebhookEndpointRequest: Codable, Sendable, Equatable {
    /// An `https` URL whose host resolves to public addresses only.
    public var url: String?
    /// The `SecurityEventKind`s it receives: at least one, no repeats.
    public var events: [String]?

    public init(url: String?, events: [String]?) {
        self.url = url
        self.events = events
    }
}

/// `PATCH /admin/apps/<app>/webhooks/<id>`: each member left out stays as it is.
public struct UpdateWebhookEndpointRequest: Codable, Sendable, Equatable {
    public var url: String?
    public var events: [String]?
    /// `false` resumes a paused endpoint; `true` pauses it, as an operator.
    public var paused: Bool?

    public init(url: String? = nil, events: [String]? = nil, paused: Bool? = nil) {
        self.url = url
        self.events = events
        self.paused = paused
    }
}

/// A webhook endpoint as listed: never its secret, which only its creation answers.
public struct WebhookEndpointResponse: Codable, Sendable, Equatable {
    public var id: String
    public var url: String
    public var events: [String]
    public var createdAt: String
    public var updatedAt: String
    public var paused: Bool
    public var pausedAt: String?
    /// Why deliveries stopped, for the endpoint's owner.
    public var pauseReason: String?
    /// Only in the answer to its creation: the one time the signing secret is shown.
    public var secret: String?

    public init(
        id: String, url: String, events: [String], createdAt: String, updatedAt: String, paused: Bool, pausedAt: String? = nil,
        pauseReason: String? = nil, secret: String? = nil
    ) {
        self.id = id
        self.url = url
        self.events = events
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.paused = paused
        self.pausedAt = pausedAt
        self.pauseReason = pauseReason
        self.secret = secret
    }

    enum CodingKeys: String, CodingKey {
        case id, url, events, paused, secret
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case pausedAt = "paused_at"
        case pauseReason = "pause_reason"
    }
}
