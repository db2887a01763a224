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
    func optionalUUID(_ name: String) throws -> UUID? { try decode(name, as: UUID?.self) }
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

extension RowDecodable {
    /// The record from a PostgreSQL row (`RecordRow` does the reading, as for SQLite).
    init(postgres row: PostgresRow) throws {
        try self.init(row: PostgresRecordRow(row))
    }
}

extension PostgresRecordRow: RecordRow {}
