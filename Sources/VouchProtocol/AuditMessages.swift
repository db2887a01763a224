import Foundation

/// One event of `GET /admin/audit` (PROTOCOL §4: `{"id", "at", "kind", "actor", "object",
/// "detail"}`; §8.12 says what Vouch puts in each). Absent values are written as `null`, so every
/// event has every member.
public struct AuditEventResponse: Codable, Sendable, Equatable {
    /// What was acted on.
    public struct Object: Codable, Sendable, Equatable {
        /// `app`, `provider`, `key`, `registration_secret` or `user`.
        public var type: String
        /// A lower-case UUID (app, provider, key, application key) or a user id.
        public var id: String

        public init(type: String, id: String) {
            self.type = type
            self.id = id
        }
    }

    /// What happened.
    public struct Detail: Codable, Sendable, Equatable {
        /// `app.create`, `key.disable`, …, `sign_in.rejected`.
        public var action: String
        /// Admin events: `ok`, or the error id the request was refused with.
        public var outcome: String?
        /// Rejected sign-ins: the §5.4 reason. Cutoffs: the reason the operator gave. Sign-outs:
        /// which sessions ended.
        public var reason: String?
        /// How many events this one stands for: rejected sign-ins are counted per app and reason
        /// over a few seconds; 1 for an admin action.
        public var count: Int64

        public init(action: String, outcome: String?, reason: String?, count: Int64) {
            self.action = action
            self.outcome = outcome
            self.reason = reason
            self.count = count
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(action, forKey: .action)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(reason, forKey: .reason)
            try container.encode(count, forKey: .count)
        }
    }

    /// Increases with every event written; what `before` pages by.
    public var id: Int64
    /// RFC 3339. For `sign_in_rejected`, the first rejection the event counts.
    public var at: String
    /// `admin`, `sign_in_rejected` or `user` (a user's own sign-outs).
    public var kind: String
    /// `api` (the admin bearer token) or `dashboard:<session id>`; `null` for rejected sign-ins.
    public var actor: String?
    public var object: Object?
    public var detail: Detail
    /// `layer:///apps/<uuid>` when an app is concerned (a §8.12 addition).
    public var appID: String?

    public init(id: Int64, at: String, kind: String, actor: String?, object: Object?, detail: Detail, appID: String?) {
        self.id = id
        self.at = at
        self.kind = kind
        self.actor = actor
        self.object = object
        self.detail = detail
        self.appID = appID
    }

    enum CodingKeys: String, CodingKey {
        case id, at, kind, actor, object, detail
        case appID = "app_id"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(at, forKey: .at)
        try container.encode(kind, forKey: .kind)
        try container.encode(actor, forKey: .actor)
        try container.encode(object, forKey: .object)
        try container.encode(detail, forKey: .detail)
        try container.encode(appID, forKey: .appID)
    }
}

/// `GET /admin/audit`: one page of events, newest first.
public struct AuditPageResponse: Codable, Sendable, Equatable {
    public var events: [AuditEventResponse]
    /// Pass as `before` for the next (older) page; `null` on the last page.
    public var next: String?

    public init(events: [AuditEventResponse], next: String?) {
        self.events = events
        self.next = next
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(events, forKey: .events)
        try container.encode(next, forKey: .next)
    }
}
