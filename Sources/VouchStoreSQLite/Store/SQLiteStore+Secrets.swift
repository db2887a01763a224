import Foundation
import VouchStore

extension SQLiteStore {
    /// INSERT OR IGNORE then SELECT in one transaction: whoever inserts first wins, and every later
    /// caller, on this instance or another process, reads that first value back.
    public func secret(named name: String, orInsert candidate: [UInt8]) async throws -> [UInt8] {
        try await transaction("secret") { db in
            try db.execute(
                "INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?, ?)", [.text(name), .bytes(candidate)])
            let rows = try db.rows("SELECT value FROM server_secrets WHERE name = ?", [.text(name)])
            guard let row = rows.first else { throw StoreError.unavailable("server secret vanished after insert") }
            return try row.bytes("value")
        }
    }
}
