import Foundation

/// One entry of `GET /admin/audit` (PROTOCOL §8).
public struct AuditEntryResponse: Codable, Sendable, Equatable {
    /// Increases with every entry written; what `cursor` pages by.
    public var id: Int64
    /// RFC 3339. For `sign_in_rejected`, the first rejection counted in the entry.
    public var at: String
    /// `admin` or `sign_in_rejected`.
    public var kind: String
    /// `api` (the admin bearer token) or `dashboard:<session id>`; absent for rejected sign-ins.
    public var actor: String?
    /// `app.create`, `key.disable`, …, `sign_in.rejected`.
    public var action: String
    /// `ok`, the error id an admin request failed with, or a rejected sign-in's §5.4 reason.
    public var outcome: String
    /// `layer:///apps/<uuid>`, when an app is concerned.
    public var appID: String?
    /// `app`, `provider`, `key`, `registration_secret` or `user`.
    public var objectType: String?
    /// The object's id: a lower-case UUID (app, provider, key, application key) or a user id.
    public var objectID: String?
    /// How many events the entry stands for (rejected sign-ins are counted per app and reason).
    public var count: Int64

    public init(id: Int64, at: String, kind: String, actor: String?, action: String, outcome: String,
                appID: String?, objectType: String?, objectID: String?, count: Int64) {
        self.id = id
        self.at = at
        self.kind = kind
        self.actor = actor
        self.action = action
        self.outcome = outcome
        self.appID = appID
        self.objectType = objectType
        self.objectID = objectID
        self.count = count
    }

    enum CodingKeys: String, CodingKey {
        case id, at, kind, actor, action, outcome, count
        case appID = "app_id"
        case objectType = "object_type"
        case objectID = "object_id"
    }
}

/// `GET /admin/audit`: one page, newest first.
public struct AuditPageResponse: Codable, Sendable, Equatable {
    public var entries: [AuditEntryResponse]
    /// Pass as `cursor` for the next (older) page; absent on the last page.
    public var nextCursor: String?

    public init(entries: [AuditEntryResponse], nextCursor: String?) {
        self.entries = entries
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey {
        case entries
        case nextCursor = "next_cursor"
    }
}
