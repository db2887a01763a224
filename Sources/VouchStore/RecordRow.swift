import Foundation
import VouchProtocol

/// A result row as both backends read it: typed columns by name, and a missing column or a value
/// of the wrong type is `StoreError.unavailable` ("corrupt row"), never a trap. Each backend's
/// row conforms; the records below are then read from either in one place, so the two backends
/// cannot drift apart on what a column means.
public protocol RecordRow {
    func uuid(_ name: String) throws -> UUID
    func optionalUUID(_ name: String) throws -> UUID?
    func int64(_ name: String) throws -> Int64
    func optionalInt64(_ name: String) throws -> Int64?
    func text(_ name: String) throws -> String
    func optionalText(_ name: String) throws -> String?
    func bytes(_ name: String) throws -> [UInt8]
    func bool(_ name: String) throws -> Bool
}

/// A record read from one row of its table (the columns named as both schemas name them).
public protocol RowDecodable {
    init(row: some RecordRow) throws
}

extension RecordRow {
    /// A text column that must be one of an enum's raw values.
    func value<Value: RawRepresentable>(_ name: String, as type: Value.Type) throws -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: try text(name)) else { throw Self.corrupt(name) }
        return value
    }

    static func corrupt(_ name: String) -> StoreError {
        StoreError.unavailable("corrupt row: column \(name) has an unexpected value")
    }
}

extension AppRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            id: try row.uuid("id"), name: try row.text("name"),
            sessionTTLSeconds: try row.int64("session_ttl_seconds"), createdAt: try row.int64("created_at"),
            challengeMarginSeconds: try row.int64("challenge_margin_seconds"),
            accessTokenTTLSeconds: try row.int64("access_token_ttl_seconds"),
            audiences: WordListColumn.words(try row.text("audiences")))
    }
}

extension SigningKeyRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            sequence: try row.int64("sequence"), keyID: try row.text("key_id"), algorithm: try row.text("algorithm"),
            privateKey: try row.bytes("private_key"), createdAt: try row.int64("created_at"),
            activatesAt: try row.int64("activates_at"))
    }
}

extension ServiceCredentialRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            id: try row.uuid("id"), appID: try row.uuid("app_id"), name: try row.text("name"),
            credentialHash: try row.bytes("credential_hash"), createdAt: try row.int64("created_at"),
            revokedAt: try row.optionalInt64("revoked_at"))
    }
}

extension WebhookEndpointRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            id: try row.uuid("id"), appID: try row.uuid("app_id"), url: try row.text("url"),
            events: WordListColumn.words(try row.text("events")), secret: try row.text("secret"),
            createdAt: try row.int64("created_at"), updatedAt: try row.int64("updated_at"),
            pausedAt: try row.optionalInt64("paused_at"), pauseReason: try row.optionalText("pause_reason"))
    }
}

extension KeyRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            id: try row.uuid("id"), providerID: try row.uuid("provider_id"),
            status: try row.value("status", as: KeyStatus.self),
            publicKeyPEM: try row.text("public_key_pem"), fingerprint: try row.text("fingerprint"),
            createdAt: try row.int64("created_at"), lastVerifiedAt: try row.optionalInt64("last_verified_at"))
    }
}

extension RegistrationSecretRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            applicationKey: try row.uuid("application_key"), appID: try row.uuid("app_id"),
            secret: try row.bytes("secret"), createdAt: try row.int64("created_at"),
            revokedAt: try row.optionalInt64("revoked_at"))
    }
}

extension UserRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            appID: try row.uuid("app_id"),
            userID: try row.text("user_id"),
            profile: IdentityProfile(
                displayName: try row.optionalText("display_name"),
                firstName: try row.optionalText("first_name"),
                lastName: try row.optionalText("last_name"),
                avatarURL: try row.optionalText("avatar_url")),
            suspended: try row.bool("suspended"),
            cutoff: try ScopeCutoff(row: row, prefix: "") ?? .none)
    }
}

extension SessionRecord: RowDecodable {
    public init(row: some RecordRow) throws {
        let endReason = try row.optionalText("end_reason").map { text in
            guard let reason = SessionEndReason(rawValue: text) else { throw type(of: row).corrupt("end_reason") }
            return reason
        }
        let device = DeviceDescription(
            name: try row.optionalText("device_name"), platform: try row.optionalText("device_platform"),
            appVersion: try row.optionalText("device_app_version"))
        self.init(
            tokenHash: try row.bytes("token_hash"), appID: try row.uuid("app_id"),
            userID: try row.text("user_id"), createdAt: try row.int64("created_at"),
            expiresAt: try row.int64("expires_at"), endedAt: try row.optionalInt64("ended_at"),
            endReason: endReason, sessionID: try row.uuid("session_id"),
            providerID: try row.optionalUUID("provider_id"), keyID: try row.optionalUUID("key_id"),
            generations: SessionGenerations(
                app: try row.int64("app_generation"), provider: try row.optionalInt64("provider_generation"),
                key: try row.optionalInt64("key_generation"), user: try row.int64("user_generation")),
            device: device.isEmpty ? nil : device, lastSeenAt: try row.optionalInt64("last_seen_at"))
    }
}

extension AuditEntry: RowDecodable {
    public init(row: some RecordRow) throws {
        self.init(
            id: try row.int64("id"),
            entry: NewAuditEntry(
                at: try row.int64("at"), kind: try row.value("kind", as: AuditKind.self), actor: try row.optionalText("actor"),
                action: try row.text("action"), outcome: try row.text("outcome"), appID: try row.optionalUUID("app_id"),
                objectType: try row.optionalText("object_type"), objectID: try row.optionalText("object_id"),
                count: try row.int64("count"), note: try row.optionalText("note")))
    }
}

extension SessionEnding: RowDecodable {
    /// The columns of `session_endings`: `scope` names which of the id columns are set
    /// (``SessionEndingScope/Columns``).
    public init(row: some RecordRow) throws {
        let scope: SessionEndingScope =
            switch try row.text("scope") {
            case "session":
                .session(try row.uuid("session_id"), appID: try row.uuid("app_id"), userID: try row.text("user_id"))
            case "user": .user(appID: try row.uuid("app_id"), userID: try row.text("user_id"))
            case "app": .app(try row.uuid("app_id"))
            case "provider": .provider(try row.uuid("provider_id"))
            case "key": .key(try row.uuid("key_id"))
            default: throw type(of: row).corrupt("scope")
            }
        self.init(
            position: try row.int64("position"), at: try row.int64("at"),
            kind: try row.value("kind", as: SessionEndingKind.self), scope: scope,
            generation: try row.optionalInt64("generation"), reason: try row.optionalText("reason"))
    }
}

extension SecurityEventRecord: RowDecodable {
    /// From a row of `security_events`, or of a query that names its columns the same way with
    /// the event's own id as `event_id` when `id` is taken (a delivery's).
    public init(row: some RecordRow) throws {
        try self.init(row: row, idColumn: "id")
    }

    public init(row: some RecordRow, idColumn: String) throws {
        self.init(
            id: try row.uuid(idColumn), appID: try row.uuid("app_id"), userID: try row.optionalText("user_id"),
            userSequence: try row.optionalInt64("user_sequence"), kind: try row.value("kind", as: SecurityEventKind.self),
            at: try row.int64("at"), data: try row.text("data"))
    }
}

extension WebhookDelivery: RowDecodable {
    /// From a row of `webhook_deliveries` joined to its event (`SecurityEventRecord`'s columns,
    /// the event's id as `event_id`).
    public init(row: some RecordRow) throws {
        self.init(
            endpointID: try row.uuid("endpoint_id"), event: try SecurityEventRecord(row: row, idColumn: "event_id"),
            state: try row.value("state", as: WebhookDeliveryState.self), attempts: Int(try row.int64("attempts")),
            nextAttemptAt: try row.int64("next_attempt_at"), lastAttemptAt: try row.optionalInt64("last_attempt_at"),
            lastOutcome: try row.optionalText("last_outcome"), deliveredAt: try row.optionalInt64("delivered_at"))
    }
}
