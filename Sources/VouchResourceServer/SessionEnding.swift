import Foundation

/// What one of Vouch's security events that end sessions says (`GET /events`, PROTOCOL §8.17:
/// `session.ended`, `user.suspended`, `cutoff.set`): which sessions stopped being valid, and
/// when.
///
/// Kept close to the wire so that an event of a scope or kind this version does not know is still
/// read, and applied as far as its members allow (a list of sessions, a `generation`).
public struct SessionEnding: Sendable, Hashable {
    /// Why the sessions ended; a struct, not an enum, because Vouch may add kinds.
    public struct Kind: RawRepresentable, Hashable, Sendable {
        /// The kind as the entry writes it (`signed_out`).
        public let rawValue: String
        /// Any kind, known to this version or not.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// An operator or the app revoked the sessions.
        public static let revoked = Kind(rawValue: "revoked")
        /// The user signed out.
        public static let signedOut = Kind(rawValue: "signed_out")
        /// An operator cut off every session below a generation.
        public static let cutOff = Kind(rawValue: "cut_off")
        /// The user was suspended; `sessionIDs` lists the sessions it ended.
        public static let suspended = Kind(rawValue: "suspended")
    }

    /// Which sessions the entry covers; a struct, not an enum, because Vouch may add scopes.
    public struct Scope: RawRepresentable, Hashable, Sendable {
        /// The scope as the entry writes it (`session`).
        public let rawValue: String
        /// Any scope, known to this version or not.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// One session, named by `sessionID`.
        public static let session = Scope(rawValue: "session")
        /// One user of one app.
        public static let user = Scope(rawValue: "user")
        /// A whole app.
        public static let app = Scope(rawValue: "app")
        /// Every session opened with an identity provider's keys.
        public static let provider = Scope(rawValue: "provider")
        /// Every session opened with one provider key.
        public static let key = Scope(rawValue: "key")
    }

    /// The event's `id`: the same every time the event is sent.
    public let eventID: String
    /// When the sessions ended (the event's `time`, Vouch's clock).
    public let at: Date
    /// Why, for logs; the rule does not depend on it.
    public let kind: Kind
    /// Which of the identifiers below a `generation` applies to.
    public let scope: Scope
    /// `app_id`: the app the event is about.
    public let appID: UUID?
    /// `user_id`: the user of a session or user event.
    public let userID: String?
    /// `data.session_id` of `session.ended`.
    public let sessionID: UUID?
    /// `data.ended_session_ids` of `user.suspended`.
    public let sessionIDs: [UUID]
    /// `data.provider_id` of a provider's cutoff.
    public let providerID: UUID?
    /// `data.key_id` of a key's cutoff.
    public let keyID: UUID?
    /// `data.generation` of `cutoff.set`; sessions recorded below it are over.
    public let generation: Int64?
    /// The operator's reason for a cutoff, when one was given; for logs.
    public let reason: String?

    /// Public so that a service that learns of endings another way (a webhook, its own tests) can
    /// apply them with ``SessionEndings/apply(_:)``.
    public init(
        eventID: String, at: Date, kind: Kind, scope: Scope, appID: UUID? = nil, userID: String? = nil, sessionID: UUID? = nil,
        sessionIDs: [UUID] = [], providerID: UUID? = nil, keyID: UUID? = nil, generation: Int64? = nil, reason: String? = nil
    ) {
        self.eventID = eventID
        self.at = at
        self.kind = kind
        self.scope = scope
        self.appID = appID
        self.userID = userID
        self.sessionID = sessionID
        self.sessionIDs = sessionIDs
        self.providerID = providerID
        self.keyID = keyID
        self.generation = generation
        self.reason = reason
    }

    /// Reads an event of `type` from its `data` line; `nil` for a type that ends no session
    /// (`user.deleted`: each of its sessions had its `session.ended`), or when the event is not
    /// what that type's documentation says (a member missing or of the wrong type).
    init?(type: String, data: String) {
        guard let event = try? StrictJSON().parseObject(Array(data.utf8)),
            let eventID = event["id"]?.string, let time = event["time"]?.string,
            let at = try? Date(time, strategy: .iso8601), let appID = event["app_id"]?.string.flatMap(UUID.init(uuidString:)),
            let members = event["data"]?.object
        else { return nil }
        guard event["user_id"] == nil || event["user_id"]?.string != nil else { return nil }
        var userID = event["user_id"]?.string
        func uuid(_ name: String) -> UUID?? {
            guard let member = members[name] else { return .some(nil) }
            return member.string.flatMap(UUID.init(uuidString:)).map { .some($0) }
        }
        var kind: Kind
        var scope: Scope
        var sessionID: UUID?
        var sessionIDs: [UUID] = []
        var generation: Int64?
        var providerID: UUID?
        var keyID: UUID?
        switch type {
        case "session.ended":
            guard let id = uuid("session_id"), let id, let ending = members["kind"]?.string else { return nil }
            (kind, scope, sessionID) = (Kind(rawValue: ending), .session, id)
        case "user.suspended":
            guard let list = members["ended_session_ids"]?.array else { return nil }
            for element in list {
                guard let id = element.string.flatMap(UUID.init(uuidString:)) else { return nil }
                sessionIDs.append(id)
            }
            (kind, scope) = (.suspended, .user)
        case "cutoff.set":
            guard let scopeName = members["scope"]?.string, let value = members["generation"]?.integer,
                let provider = uuid("provider_id"), let key = uuid("key_id"),
                members["user_id"] == nil || members["user_id"]?.string != nil
            else { return nil }
            (kind, scope, generation, providerID, keyID) = (.cutOff, Scope(rawValue: scopeName), value, provider, key)
            userID = members["user_id"]?.string ?? userID
        default:
            return nil
        }
        self.init(
            eventID: eventID, at: at, kind: kind, scope: scope, appID: appID, userID: userID, sessionID: sessionID,
            sessionIDs: sessionIDs, providerID: providerID, keyID: keyID, generation: generation, reason: members["reason"]?.string)
    }

    /// The event types that end sessions, the stream's filter.
    static let eventTypes = ["session.ended", "user.suspended", "cutoff.set"]
}
