import Foundation
import NIOCore
import PostgresNIO
import VouchProtocol
import VouchStore

// How Swift values are laid out in PostgreSQL: UUIDs as `uuid`, times as `bigint` Unix seconds
// (the same numbers the SQLite store keeps), bytes as `bytea`, flags as `boolean`.

/// Typed reads of a result row. A column that is missing or holds the wrong type is reported as an
/// error naming the column, never trapped on (PostgresNIO's name subscript would trap).
struct PostgresRecordRow {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) { self.row = row.makeRandomAccess() }

    func decode<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard row.contains(name) else { throw corrupt(name) }
        do {
            return try row[name].decode(T.self, context: .default)
        } catch {
            throw corrupt(name)
        }
    }

    func uuid(_ name: String) throws -> UUID { try decode(name) }
    func int64(_ name: String) throws -> Int64 { try decode(name) }
    func optionalInt64(_ name: String) throws -> Int64? { try decode(name, as: Int64?.self) }
    func text(_ name: String) throws -> String { try decode(name) }
    func optionalText(_ name: String) throws -> String? { try decode(name, as: String?.self) }
    func bool(_ name: String) throws -> Bool { try decode(name) }
    func bytes(_ name: String) throws -> [UInt8] {
        var buffer: ByteBuffer = try decode(name)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// Names the column only: its value may be secret.
    private func corrupt(_ name: String) -> StoreError {
        .unavailable("corrupt row: column \(name) is missing or has an unexpected value")
    }
}

extension Array where Element == UInt8 {
    /// As `bytea`: PostgresNIO would send a `[UInt8]` as an array of `"char"`.
    var bytea: ByteBuffer { ByteBuffer(bytes: self) }
}

extension AppRecord {
    init(postgres row: PostgresRow) throws {
        let row = PostgresRecordRow(row)
        self.init(id: try row.uuid("id"), name: try row.text("name"),
                  sessionTTLSeconds: try row.int64("session_ttl_seconds"), createdAt: try row.int64("created_at"))
    }
}

extension KeyRecord {
    init(postgres row: PostgresRow) throws {
        let row = PostgresRecordRow(row)
        guard let status = KeyStatus(rawValue: try row.text("status")) else {
            throw StoreError.unavailable("corrupt row: column status has an unexpected value")
        }
        self.init(id: try row.uuid("id"), providerID: try row.uuid("provider_id"), status: status,
                  publicKeyPEM: try row.text("public_key_pem"), fingerprint: try row.text("fingerprint"),
                  createdAt: try row.int64("created_at"), lastVerifiedAt: try row.optionalInt64("last_verified_at"))
    }
}

extension RegistrationSecretRecord {
    init(postgres row: PostgresRow) throws {
        let row = PostgresRecordRow(row)
        self.init(applicationKey: try row.uuid("application_key"), appID: try row.uuid("app_id"),
                  secret: try row.bytes("secret"), createdAt: try row.int64("created_at"),
                  revokedAt: try row.optionalInt64("revoked_at"))
    }
}

extension UserRecord {
    init(postgres row: PostgresRow) throws {
        let row = PostgresRecordRow(row)
        self.init(
            appID: try row.uuid("app_id"),
            userID: try row.text("user_id"),
            profile: IdentityProfile(
                displayName: try row.optionalText("display_name"),
                firstName: try row.optionalText("first_name"),
                lastName: try row.optionalText("last_name"),
                avatarURL: try row.optionalText("avatar_url")),
            suspended: try row.bool("suspended"))
    }
}

extension SessionRecord {
    init(postgres row: PostgresRow) throws {
        let row = PostgresRecordRow(row)
        let endReason = try row.optionalText("end_reason").map { text in
            guard let reason = SessionEndReason(rawValue: text) else {
                throw StoreError.unavailable("corrupt row: column end_reason has an unexpected value")
            }
            return reason
        }
        self.init(tokenHash: try row.bytes("token_hash"), appID: try row.uuid("app_id"),
                  userID: try row.text("user_id"), createdAt: try row.int64("created_at"),
                  expiresAt: try row.int64("expires_at"), endedAt: try row.optionalInt64("ended_at"),
                  endReason: endReason)
    }
}
