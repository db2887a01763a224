import Foundation
import VouchStore

extension SQLiteStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await read("signingKeys") { db in
            try db.rows("SELECT * FROM signing_keys ORDER BY sequence").map(SigningKeyRecord.init(row:))
        }
    }

    /// One `INSERT … ON CONFLICT DO NOTHING` on the single writer: a taken `sequence` (the primary
    /// key) or `key_id` (unique) inserts nothing and returns no row, so of two adders of one
    /// successor the second finds the first's row and gets `false`. No cache holds signing keys.
    public func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try await exclusive("addSigningKey", invalidating: .none) { db in
            !(try db.rows(
                """
                INSERT INTO signing_keys (sequence, key_id, algorithm, private_key, created_at, activates_at)
                VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING sequence
                """,
                [
                    .int64(key.sequence), .text(key.keyID), .text(key.algorithm), .bytes(key.privateKey),
                    .int64(key.createdAt), .int64(key.activatesAt),
                ]
            ).isEmpty)
        }
    }

    @discardableResult
    public func deleteSigningKeys(below sequence: Int64) async throws -> Int {
        try await exclusive("deleteSigningKeys", invalidating: .none) { db in
            try db.changes("DELETE FROM signing_keys WHERE sequence < ?", [.int64(sequence)])
        }
    }
}
