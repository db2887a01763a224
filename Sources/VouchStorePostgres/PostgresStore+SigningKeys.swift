import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await single("signingKeys") { db in
            try await db.rows("SELECT * FROM signing_keys ORDER BY sequence").map(SigningKeyRecord.init(postgres:))
        }
    }

    /// One `INSERT … ON CONFLICT DO NOTHING`, its own transaction. Two instances adding one
    /// successor at once: the second's insert finds the first's uncommitted entry in the unique
    /// index of `sequence` (or of `key_id`), waits for it to commit, then inserts nothing and
    /// returns no row (`false`); had the first rolled back, the second would insert. So exactly
    /// one of them gets `true`, however many instances try.
    public func addSigningKey(_ key: SigningKeyRecord) async throws -> Bool {
        try await single("addSigningKey") { db in
            !(try await db.rows(
                """
                INSERT INTO signing_keys (sequence, key_id, algorithm, private_key, created_at, activates_at)
                VALUES (\(key.sequence), \(key.keyID), \(key.algorithm), \(key.privateKey.bytea), \(key.createdAt), \(key.activatesAt))
                ON CONFLICT DO NOTHING RETURNING sequence
                """
            ).isEmpty)
        }
    }

    @discardableResult
    public func deleteSigningKeys(below sequence: Int64) async throws -> Int {
        try await single("deleteSigningKeys") { db in
            try await db.count("DELETE FROM signing_keys WHERE sequence < \(sequence) RETURNING 1")
        }
    }
}
