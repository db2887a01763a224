import Foundation
import VouchStore

/// One table's row inside a wider result row, its columns named `prefix.column`: how a single
/// statement returns several records of different tables (`signInFacts`'s app, key and
/// secret) that the shared decoders (`RowDecodable`) then read by their usual column names.
struct PrefixedRecordRow: RecordRow {
    let base: PostgresRecordRow
    let prefix: String
    /// A `uuid` column that is never NULL in the table: NULL here means the left join found no row.
    let presenceColumn: String

    init(_ base: PostgresRecordRow, prefix: String, presentIf presenceColumn: String) {
        self.base = base
        self.prefix = prefix
        self.presenceColumn = presenceColumn
    }

    /// Whether the joined row exists.
    func isPresent() throws -> Bool { try base.optionalUUID(name(presenceColumn)) != nil }

    /// The select-list entries for `columns` of the table aliased `alias`, each named
    /// `prefix.column` (quoted: the dot is part of the name).
    static func columns(_ columns: [String], of alias: String, as prefix: String) -> String {
        columns.map { "\(alias).\($0) AS \"\(prefix).\($0)\"" }.joined(separator: ", ")
    }

    private func name(_ column: String) -> String { prefix + "." + column }

    func uuid(_ name: String) throws -> UUID { try base.uuid(self.name(name)) }
    func optionalUUID(_ name: String) throws -> UUID? { try base.optionalUUID(self.name(name)) }
    func int64(_ name: String) throws -> Int64 { try base.int64(self.name(name)) }
    func optionalInt64(_ name: String) throws -> Int64? { try base.optionalInt64(self.name(name)) }
    func text(_ name: String) throws -> String { try base.text(self.name(name)) }
    func optionalText(_ name: String) throws -> String? { try base.optionalText(self.name(name)) }
    func bytes(_ name: String) throws -> [UInt8] { try base.bytes(self.name(name)) }
    func bool(_ name: String) throws -> Bool { try base.bool(self.name(name)) }
}

// Each list names exactly the columns its record's decoder (`RowDecodable`, in VouchStore) reads:
// a column the decoder reads and the list leaves out would make every sign-in's read fail as a
// corrupt row. `PrefixedColumnsTests` holds the lists to the decoders.

extension AppRecord {
    /// The columns `AppRecord(row:)` reads.
    static let postgresColumns = [
        "id", "name", "session_ttl_seconds", "created_at", "challenge_margin_seconds", "access_token_ttl_seconds", "audiences",
    ]
}

extension KeyRecord {
    /// The columns `KeyRecord(row:)` reads.
    static let postgresColumns = ["id", "provider_id", "status", "public_key_pem", "fingerprint", "created_at", "last_verified_at"]
}

extension RegistrationSecretRecord {
    /// The columns `RegistrationSecretRecord(row:)` reads.
    static let postgresColumns = ["application_key", "app_id", "secret", "created_at", "revoked_at"]
}
