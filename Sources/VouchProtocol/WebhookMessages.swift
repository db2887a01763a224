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

/// One event owed to one endpoint, as its owner sees it: what was sent, how often, and how it went.
public struct WebhookDeliveryResponse: Codable, Sendable, Equatable {
    public var eventID: String
    public var eventType: String
    public var userID: String?
    public var sequence: Int64?
    /// When the event happened.
    public var eventTime: String
    /// `pending`, `delivered` or `failed` (given up after the retry window; a replay makes it pending).
    public var state: String
    public var attempts: Int
    /// A pending delivery's next attempt.
    public var nextAttemptAt: String?
    public var lastAttemptAt: String?
    /// The last attempt's outcome in one line: `HTTP 500`, `no answer in time`.
    public var lastOutcome: String?
    public var deliveredAt: String?

    public init(
        eventID: String, eventType: String, userID: String?, sequence: Int64?, eventTime: String, state: String,
        attempts: Int, nextAttemptAt: String?, lastAttemptAt: String?, lastOutcome: String?, deliveredAt: String?
    ) {
        self.eventID = eventID
        self.eventType = eventType
        self.userID = userID
        self.sequence = sequence
        self.eventTime = eventTime
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastOutcome = lastOutcome
        self.deliveredAt = deliveredAt
    }

    enum CodingKeys: String, CodingKey {
        case state, attempts, sequence
        case eventID = "event_id"
        case eventType = "event_type"
        case userID = "user_id"
        case eventTime = "event_time"
        case nextAttemptAt = "next_attempt_at"
        case lastAttemptAt = "last_attempt_at"
        case lastOutcome = "last_outcome"
        case deliveredAt = "delivered_at"
    }
}

/// `GET /admin/apps/<app>/webhooks/<id>/deliveries`'s answer: the newest first.
public struct WebhookDeliveryList: Codable, Sendable, Equatable {
    public var deliveries: [WebhookDeliveryResponse]

    public init(deliveries: [WebhookDeliveryResponse]) { self.deliveries = deliveries }
}
