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

    static func optionalInt64(_ value: Int64?) -> SQLiteData { value.map { .integer($0) } ?? .null }
}

/// Typed reads of a result row. A column that is missing or holds the wrong type means the file was
/// edited by hand or is corrupt: that is reported as an error, never trapped on.
extension SQLiteRow: RecordRow {
    func uuid(_ name: String) throws -> UUID {
        guard let text = try data(name).string, let value = LayerID.parseUUID(text) else {
            throw corrupt(name)
        }
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
