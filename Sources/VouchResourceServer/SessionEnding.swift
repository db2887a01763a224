import Foundation

/// One entry of Vouch's log of endings (`GET /events/sessions`, event `session.ended`): which
/// sessions stopped being valid, and when.
///
/// Kept close to the wire so that an entry of a scope or kind this version does not know is still
/// read, and applied as far as its members allow (a `sids` list, a `generation`).
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

    /// The entry's place in the log: what a reconnecting follower resumes after.
    public let position: Int64
    /// When the sessions ended (Vouch's clock).
    public let at: Date
    /// `kind`: why, for logs; the rule does not depend on it.
    public let kind: Kind
    /// `scope`: which of the identifiers below a `generation` applies to.
    public let scope: Scope
    /// `app`: the app of a session, user or app entry.
    public let appID: UUID?
    /// `sub`: the user of a session or user entry.
    public let userID: String?
    /// `sid`: the session of a session entry.
    public let sessionID: UUID?
    /// `sids`: the sessions a suspension ended.
    public let sessionIDs: [UUID]
    /// `provider_id`: the provider of a provider entry.
    public let providerID: UUID?
    /// `key_id`: the key of a key entry.
    public let keyID: UUID?
    /// `generation`: the cutoff's new generation; sessions recorded below it are over.
    public let generation: Int64?
    /// The operator's reason for a cutoff, when one was given; for logs.
    public let reason: String?

    /// Public so that a service that learns of endings another way (a webhook, its own tests) can
    /// apply them with ``SessionEndings/apply(_:)``.
    public init(
        position: Int64, at: Date, kind: Kind, scope: Scope, appID: UUID? = nil, userID: String? = nil, sessionID: UUID? = nil,
        sessionIDs: [UUID] = [], providerID: UUID? = nil, keyID: UUID? = nil, generation: Int64? = nil, reason: String? = nil
    ) {
        self.position = position
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

    /// Reads an entry's `data`; `nil` when it is not a JSON object with an integer `position` and
    /// `at` and string `kind` and `scope`, or a member has the wrong type.
    init?(data: String) {
        guard let members = try? StrictJSON().parseObject(Array(data.utf8)),
            let position = members["position"]?.integer, let at = members["at"]?.integer,
            let kind = members["kind"]?.string, let scope = members["scope"]?.string
        else { return nil }
        func uuid(_ name: String) -> UUID?? {
            guard let member = members[name] else { return .some(nil) }
            return member.string.flatMap(UUID.init(uuidString:)).map { .some($0) }
        }
        guard let appID = uuid("app"), let sessionID = uuid("sid"), let providerID = uuid("provider_id"), let keyID = uuid("key_id")
        else { return nil }
        var sessionIDs: [UUID] = []
        if let list = members["sids"] {
            guard let elements = list.array else { return nil }
            for element in elements {
                guard let id = element.string.flatMap(UUID.init(uuidString:)) else { return nil }
                sessionIDs.append(id)
            }
        }
        let generation = members["generation"]?.integer
        guard members["generation"] == nil || generation != nil else { return nil }
        guard members["sub"] == nil || members["sub"]?.string != nil else { return nil }
        self.position = position
        self.at = Date(timeIntervalSince1970: Double(at))
        self.kind = Kind(rawValue: kind)
        self.scope = Scope(rawValue: scope)
        self.appID = appID
        self.userID = members["sub"]?.string
        self.sessionID = sessionID
        self.sessionIDs = sessionIDs
        self.providerID = providerID
        self.keyID = keyID
        self.generation = generation
        self.reason = members["reason"]?.string
    }
}
