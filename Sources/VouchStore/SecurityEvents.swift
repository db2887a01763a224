import Foundation
import VouchProtocol

/// A security event (PROTOCOL §8.17) as the outbox keeps it. The store writes it in the same
/// transaction as the change it tells of, so that an event exists if and only if its change
/// committed; `session.created`, which comes with every sign-in, only while an endpoint of its app
/// subscribes to it (`SecurityEventKind.isWrittenWithoutSubscriber`), so that a sign-in nobody
/// listens for costs nothing.
public struct SecurityEventRecord: Sendable, Equatable {
    /// Random, stable across every delivery and retry: a receiver drops a repeat by it.
    public var id: UUID
    public var appID: UUID
    /// `nil` for an event about the app's catalogue (a key, a secret, a wider cutoff).
    public var userID: String?
    /// 1, 2, 3… per user of an app, in commit order: the order each endpoint receives the user's
    /// events in. `nil` when `userID` is.
    public var userSequence: Int64?
    public var kind: SecurityEventKind
    /// Unix seconds of the change.
    public var at: Int64
    /// The kind's fields, a JSON object (`SecurityEventData`).
    public var data: String

    public init(
        id: UUID, appID: UUID, userID: String?, userSequence: Int64?, kind: SecurityEventKind, at: Int64, data: String
    ) {
        self.id = id
        self.appID = appID
        self.userID = userID
        self.userSequence = userSequence
        self.kind = kind
        self.at = at
        self.data = data
    }
}

/// Why a session ended, in a `session.ended` event's `kind`.
public enum SessionEndedKind: String, Sendable, CaseIterable {
    case revoked
    case signedOut = "signed_out"
    case suspended
    /// It reached its `expires_at` unended (`Store.recordSessionExpiries`).
    case expired
    /// A cutoff of its user ended it (a wider cutoff tells `cutoff.set` alone: it may end millions).
    case cutOff = "cut_off"
}

extension SessionEndedKind {
    public init(_ reason: SessionEndReason) {
        switch reason {
        case .revoked: self = .revoked
        case .signedOut: self = .signedOut
        case .userSuspended: self = .suspended
        }
    }
}

extension SecurityEventKind {
    /// The event of a key's move to `status`.
    public init(keyStatus status: KeyStatus) {
        switch status {
        case .active: self = .keyEnabled
        case .disabled: self = .keyDisabled
        case .deleted: self = .keyDeleted
        }
    }
}

/// Who ended a session, in a `session.ended` event's `actor`.
public enum SecurityEventActor: String, Sendable, CaseIterable {
    /// The user, from one of their own devices.
    case user
    /// An operator, through the admin API, the CLI or the dashboard.
    case `operator`
}

/// The `data` object of each kind, built the same way on every backend that builds it in Swift
/// (keys sorted, nulls left out), so that an event's bytes do not depend on the backend.
public enum SecurityEventData {
    /// `session.created`.
    public static func sessionCreated(_ session: NewSession) -> String {
        var fields: [String: JSONValue] = ["session_id": .string(session.sessionID.lowercased)]
        if let providerID = session.providerID { fields["provider_id"] = .string(providerID.lowercased) }
        if let keyID = session.keyID { fields["key_id"] = .string(keyID.lowercased) }
        if let device = session.device {
            var described: [String: JSONValue] = [:]
            if let name = device.name { described["name"] = .string(name) }
            if let platform = device.platform { described["platform"] = .string(platform) }
            if let version = device.appVersion { described["app_version"] = .string(version) }
            if !described.isEmpty { fields["device"] = .object(described) }
        }
        return text(fields)
    }

    /// `session.ended`; without a session id, the fields a backend adds the id to itself. An
    /// expiry has no actor; a cutoff carries the operator's reason, when one was given.
    public static func sessionEnded(
        sessionID: UUID?, kind: SessionEndedKind, actor: SecurityEventActor?, reason: String? = nil
    ) -> String {
        var fields: [String: JSONValue] = ["kind": .string(kind.rawValue)]
        if let actor { fields["actor"] = .string(actor.rawValue) }
        if let reason { fields["reason"] = .string(reason) }
        if let sessionID { fields["session_id"] = .string(sessionID.lowercased) }
        return text(fields)
    }

    /// `user.suspended` (with the sessions it ended) and `user.unsuspended`.
    public static func userSuspension(endedSessionIDs: [UUID]?) -> String {
        guard let endedSessionIDs else { return "{}" }
        return text(["ended_session_ids": .array(endedSessionIDs.map { .string($0.lowercased) })])
    }

    /// `user.deleted`: how many live sessions the erasure ended (each has its `session.ended`
    /// before it), and the pseudonym the audit log now names the user by. The event's own `user_id`
    /// still names the user: it is the app's signal to forget them too.
    public static func userDeleted(sessionsEnded: Int, pseudonym: String) -> String {
        text(["sessions_ended": .number(JSONNumber(Int64(sessionsEnded))), "pseudonym": .string(pseudonym)])
    }

    /// `cutoff.set`: the scope, its object, the generation sessions below which are over, how many
    /// live sessions it ended, and the operator's reason.
    public static func cutoffSet(_ target: CutoffTarget, generation: Int64, sessionsEnded: Int, reason: String?) -> String {
        var fields: [String: JSONValue] = [
            "scope": .string(target.scope.rawValue), "generation": .number(JSONNumber(generation)),
            "sessions_ended": .number(JSONNumber(Int64(sessionsEnded))),
        ]
        switch target {
        case .app: break
        case .provider(let id): fields["provider_id"] = .string(id.lowercased)
        case .key(let id): fields["key_id"] = .string(id.lowercased)
        case .user(_, let userID): fields["user_id"] = .string(userID)
        }
        if let reason { fields["reason"] = .string(reason) }
        return text(fields)
    }

    /// `key.created|disabled|enabled|deleted`.
    public static func key(_ key: KeyRecord) -> String {
        text([
            "key_id": .string(key.id.lowercased), "provider_id": .string(key.providerID.lowercased),
            "status": .string(key.status.rawValue),
        ])
    }

    /// `registration_secret.revoked`.
    public static func registrationSecretRevoked(_ secret: RegistrationSecretRecord) -> String {
        var fields: [String: JSONValue] = ["application_key": .string(secret.applicationKey.lowercased)]
        if let revokedAt = secret.revokedAt { fields["revoked_at"] = .number(JSONNumber(revokedAt)) }
        return text(fields)
    }

    static func text(_ fields: [String: JSONValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(JSONValue.object(fields)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
