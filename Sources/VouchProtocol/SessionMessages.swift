/// Bodies of the device and cutoff calls: a user's own sessions (`GET /sessions`), an operator's
/// view of them, and cutoffs (`/admin/…/cutoff`).

/// One session as its user or an operator sees it: never its token.
public struct SessionSummary: Codable, Sendable, Equatable {
    /// The public id, a lower-case UUID.
    public var sessionID: String
    public var device: DeviceDescription?
    public var createdAt: String
    /// When a request last used it, to within a minute.
    public var lastSeenAt: String
    public var expiresAt: String
    /// `true` on the session that made the request (a user's own listing only).
    public var current: Bool
    /// `layer:///providers/<uuid>` and the key id that opened it (Layer profile); `null` otherwise.
    public var providerID: String?
    public var keyID: String?

    public init(
        sessionID: String, device: DeviceDescription?, createdAt: String, lastSeenAt: String, expiresAt: String,
        current: Bool, providerID: String? = nil, keyID: String? = nil
    ) {
        self.sessionID = sessionID
        self.device = device
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.current = current
        self.providerID = providerID
        self.keyID = keyID
    }

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case device
        case createdAt = "created_at"
        case lastSeenAt = "last_seen_at"
        case expiresAt = "expires_at"
        case current
        case providerID = "provider_id"
        case keyID = "key_id"
    }

    /// Writes absent members as `null` (every member, always).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sessionID, forKey: .sessionID)
        try container.encode(device, forKey: .device)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(lastSeenAt, forKey: .lastSeenAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(current, forKey: .current)
        try container.encode(providerID, forKey: .providerID)
        try container.encode(keyID, forKey: .keyID)
    }
}

/// `200` of `GET /sessions` and `GET /admin/apps/<app>/users/<user>/sessions`: live sessions,
/// oldest first.
public struct SessionListResponse: Codable, Sendable, Equatable {
    public var sessions: [SessionSummary]
    public init(sessions: [SessionSummary]) { self.sessions = sessions }
}

/// `200` of `POST /sessions/sign-out-others`.
public struct SessionsEndedResponse: Codable, Sendable, Equatable {
    public var sessionsEnded: Int
    public init(sessionsEnded: Int) { self.sessionsEnded = sessionsEnded }

    enum CodingKeys: String, CodingKey {
        case sessionsEnded = "sessions_ended"
    }
}

/// The optional body of `POST /admin/…/cutoff`.
public struct CutoffRequest: Codable, Sendable, Equatable {
    /// Shown in the audit log and in the challenge's `data.detail`: 1…256 bytes, no control characters.
    public var reason: String?
    public init(reason: String? = nil) { self.reason = reason }
}

/// `200` of `POST /admin/…/cutoff`.
public struct CutoffResponse: Codable, Sendable, Equatable {
    /// `app`, `provider`, `key` or `user`.
    public var scope: String
    public var cutoffAt: String
    public var reason: String?
    public var sessionsEnded: Int

    public init(scope: String, cutoffAt: String, reason: String?, sessionsEnded: Int) {
        self.scope = scope
        self.cutoffAt = cutoffAt
        self.reason = reason
        self.sessionsEnded = sessionsEnded
    }

    enum CodingKeys: String, CodingKey {
        case scope
        case cutoffAt = "cutoff_at"
        case reason
        case sessionsEnded = "sessions_ended"
    }

    /// Writes `reason` as `null` when there is none (every member, always).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scope, forKey: .scope)
        try container.encode(cutoffAt, forKey: .cutoffAt)
        try container.encode(reason, forKey: .reason)
        try container.encode(sessionsEnded, forKey: .sessionsEnded)
    }
}

/// `200` of `GET /admin/…/cutoff`: the scope's last cutoff (`null` before the first) and how many
/// of its sessions are live now (what a cutoff would end).
public struct CutoffStatusResponse: Codable, Sendable, Equatable {
    public struct Cutoff: Codable, Sendable, Equatable {
        public var cutoffAt: String
        public var reason: String?

        public init(cutoffAt: String, reason: String?) {
            self.cutoffAt = cutoffAt
            self.reason = reason
        }

        enum CodingKeys: String, CodingKey {
            case cutoffAt = "cutoff_at"
            case reason
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(cutoffAt, forKey: .cutoffAt)
            try container.encode(reason, forKey: .reason)
        }
    }

    public var scope: String
    public var cutoff: Cutoff?
    public var liveSessions: Int

    public init(scope: String, cutoff: Cutoff?, liveSessions: Int) {
        self.scope = scope
        self.cutoff = cutoff
        self.liveSessions = liveSessions
    }

    enum CodingKeys: String, CodingKey {
        case scope, cutoff
        case liveSessions = "live_sessions"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(scope, forKey: .scope)
        try container.encode(cutoff, forKey: .cutoff)
        try container.encode(liveSessions, forKey: .liveSessions)
    }
}
