/// Bodies of a user's erasure (`DELETE /admin/apps/<app>/users/<user>`) and export
/// (`GET /admin/apps/<app>/users/<user>/export`), PROTOCOL §4.

/// `200` of an erasure: what was forgotten, and the pseudonym the audit log names the user by now.
public struct UserErasureResponse: Codable, Sendable, Equatable {
    public var userID: String
    /// `erased-<24 hex digits>`: the same for the same user id of the same app on every erasure
    /// and every instance, so that an auditor can tell the entries of one erased user apart
    /// without learning who they were.
    public var pseudonym: String
    /// Live sessions ended (each pushed to its device as a sign-out).
    public var sessionsEnded: Int
    /// Session rows deleted, ended ones included.
    public var sessionsForgotten: Int
    public var auditEntriesPseudonymised: Int

    public init(userID: String, pseudonym: String, sessionsEnded: Int, sessionsForgotten: Int, auditEntriesPseudonymised: Int) {
        self.userID = userID
        self.pseudonym = pseudonym
        self.sessionsEnded = sessionsEnded
        self.sessionsForgotten = sessionsForgotten
        self.auditEntriesPseudonymised = auditEntriesPseudonymised
    }

    enum CodingKeys: String, CodingKey {
        case pseudonym
        case userID = "user_id"
        case sessionsEnded = "sessions_ended"
        case sessionsForgotten = "sessions_forgotten"
        case auditEntriesPseudonymised = "audit_entries_pseudonymised"
    }
}

/// `200` of an export: everything Vouch holds about the user.
public struct UserExportResponse: Codable, Sendable, Equatable {
    /// One session, ended ones too, as the store keeps it (never its token).
    public struct Session: Codable, Sendable, Equatable {
        public var sessionID: String
        public var device: DeviceDescription?
        public var createdAt: String
        public var lastSeenAt: String
        public var expiresAt: String
        public var endedAt: String?
        /// `revoked`, `signed_out` or `user_suspended`.
        public var endReason: String?
        public var providerID: String?
        public var keyID: String?

        public init(
            sessionID: String, device: DeviceDescription?, createdAt: String, lastSeenAt: String, expiresAt: String,
            endedAt: String?, endReason: String?, providerID: String?, keyID: String?
        ) {
            self.sessionID = sessionID
            self.device = device
            self.createdAt = createdAt
            self.lastSeenAt = lastSeenAt
            self.expiresAt = expiresAt
            self.endedAt = endedAt
            self.endReason = endReason
            self.providerID = providerID
            self.keyID = keyID
        }

        enum CodingKeys: String, CodingKey {
            case device
            case sessionID = "session_id"
            case createdAt = "created_at"
            case lastSeenAt = "last_seen_at"
            case expiresAt = "expires_at"
            case endedAt = "ended_at"
            case endReason = "end_reason"
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
            try container.encode(endedAt, forKey: .endedAt)
            try container.encode(endReason, forKey: .endReason)
            try container.encode(providerID, forKey: .providerID)
            try container.encode(keyID, forKey: .keyID)
        }
    }

    public var user: Identity
    public var suspended: Bool
    /// The user's first sign-in (or the suspension that made their record), and the last change.
    public var createdAt: String
    public var updatedAt: String
    /// The user's last cutoff, if any.
    public var cutoff: CutoffStatusResponse.Cutoff?
    /// Newest first; at most 1 000.
    public var sessions: [Session]
    /// The user's security events the outbox still keeps (PROTOCOL §8.17), oldest first, each as a
    /// webhook receives it; at most 1 000.
    public var events: [JSONValue]
    /// Audit entries about the user, newest first; at most 1 000.
    public var audit: [AuditEventResponse]
    public var exportedAt: String

    public init(
        user: Identity, suspended: Bool, createdAt: String, updatedAt: String, cutoff: CutoffStatusResponse.Cutoff?,
        sessions: [Session], events: [JSONValue], audit: [AuditEventResponse], exportedAt: String
    ) {
        self.user = user
        self.suspended = suspended
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.cutoff = cutoff
        self.sessions = sessions
        self.events = events
        self.audit = audit
        self.exportedAt = exportedAt
    }

    enum CodingKeys: String, CodingKey {
        case user, suspended, cutoff, sessions, events, audit
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case exportedAt = "exported_at"
    }

    /// Writes an absent cutoff as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(user, forKey: .user)
        try container.encode(suspended, forKey: .suspended)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
        try container.encode(cutoff, forKey: .cutoff)
        try container.encode(sessions, forKey: .sessions)
        try container.encode(events, forKey: .events)
        try container.encode(audit, forKey: .audit)
        try container.encode(exportedAt, forKey: .exportedAt)
    }
}
