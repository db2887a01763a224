import Foundation
import VouchProtocol
import VouchStore

// How Swift values are laid out in SQLite: UUIDs as lower-case text (readable in the sqlite3
// shell and identical to what the API prints), times as integer Unix seconds, bytes as BLOBs.

extension SQLiteData {
    static func int64(_ value: Int64) -> SQLiteData { .integer(value) }

    static func bytes(_ value: [UInt8]) -> SQLiteData { .blob(value) }

    static func bool(_ value: Bool) -> SQLiteData { .integer(value ? 1 : 0) }

    static func optionalText(_ value: String?) -> SQLiteData { value.map { .text($0) } ?? .null }

    static func optionalUUID(_ value: UUID?) -> SQLiteData { value.map { .uuid($0) } ?? .null }

    /// A UUID as its 16 bytes: for a column an index carries on every sign-in (a session's public
    /// id), where the text form would more than double the entry.
    static func uuidBytes(_ value: UUID) -> SQLiteData {
        .blob(withUnsafeBytes(of: value.uuid) { Array($0) })
    }

    static func optionalInt64(_ value: Int64?) -> SQLiteData { value.map { .integer($0) } ?? .null }
}

/// Typed reads of a result row. A column that is missing or holds the wrong type means the file was
/// edited by hand or is corrupt: that is reported as an error, never trapped on.
extension SQLiteRow: RecordRow {
    /// A UUID stored as text, or as its 16 bytes (`SQLiteData.uuidBytes`).
    func uuid(_ name: String) throws -> UUID {
        let data = try data(name)
        if case .blob(let bytes) = data, bytes.count == 16 {
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                    bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
        guard let text = data.string, let value = LayerID.parseUUID(text) else { throw corrupt(name) }
        return value
    }

    func optionalUUID(_ name: String) throws -> UUID? {
        try optionalText(name) == nil ? nil : try uuid(name)
    }

    func int64(_ name: String) throws -> Int64 {
        guard case .integer(let value) = try data(name) else { throw corrupt(name) }
        return value
    }

    func optionalInt64(_ name: String) throws -> Int64? {
        let data = try data(name)
        if data.isNull { return nil }
        guard case .integer(let value) = data else { throw corrupt(name) }
        return value
    }

    func text(_ name: String) throws -> String {
        guard case .text(let value) = try data(name) else { throw corrupt(name) }
        return value
    }

    func optionalText(_ name: String) throws -> String? {
        let data = try data(name)
        if data.isNull { return nil }
        guard case .text(let value) = data else { throw corrupt(name) }
        return value
    }

    func bytes(_ name: String) throws -> [UInt8] {
        guard case .blob(let bytes) = try data(name) else { throw corrupt(name) }
        return bytes
    }

    func bool(_ name: String) throws -> Bool {
        guard let value = try data(name).bool else { throw corrupt(name) }
        return value
    }

    private func data(_ name: String) throws -> SQLiteData {
        guard let data = column(name) else { throw corrupt(name) }
        return data
    }

    /// Names the column only: its value may be secret.
    private func corrupt(_ name: String) -> StoreError {
        .unavailable("corrupt row: column \(name) is missing or has an unexpected value")
    }
}
