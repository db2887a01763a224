import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    public func createKey(_ key: KeyRecord) async throws {
        try await exclusive("createKey") { db in
            // One statement decides, so two uploads of one key cannot both get in.
            let inserted = try db.changes(
                """
                INSERT INTO provider_keys (id, provider_id, status, public_key_pem, fingerprint, created_at)
                SELECT ?, ?, ?, ?, ?, ?
                WHERE NOT EXISTS (SELECT 1 FROM provider_keys WHERE provider_id = ? AND fingerprint = ?)
                """,
                [
                    .uuid(key.id), .uuid(key.providerID), .text(key.status.rawValue), .text(key.publicKeyPEM),
                    .text(key.fingerprint), .int64(key.createdAt), .uuid(key.providerID), .text(key.fingerprint),
                ])
            guard inserted == 1 else { throw StoreError.alreadyExists }
            try Self.recordEvent(
                .keyCreated, providerID: key.providerID, at: key.createdAt, data: { SecurityEventData.key(key) }, db)
        }
    }

    public func key(id: UUID) async throws -> KeyRecord? {
        try await read("key") { db in
            try db.rows("SELECT * FROM provider_keys WHERE id = ?", [.uuid(id)]).first.map(KeyRecord.init(row:))
        }
    }

    public func keys(ofProvider providerID: UUID) async throws -> [KeyRecord] {
        try await read("keys") { db in
            try db.rows(
                "SELECT * FROM provider_keys WHERE provider_id = ? ORDER BY created_at, rowid", [.uuid(providerID)]
            ).map(KeyRecord.init(row:))
        }
    }

    /// The UPDATE's own condition refuses a tombstone; when it changed nothing, the key is either
    /// unknown or deleted, and a deleted key stays deleted, so reading which one afterwards is safe.
    public func setKeyStatus(id: UUID, to status: KeyStatus) async throws -> KeyRecord {
        try await exclusive("setKeyStatus") { db in
            let before = try db.rows("SELECT status FROM provider_keys WHERE id = ?", [.uuid(id)]).first?.text("status")
            let updated = try db.rows(
                """
                UPDATE provider_keys SET status = ?1
                WHERE id = ?2 AND (status <> 'deleted' OR ?1 = 'deleted') RETURNING *
                """,
                [.text(status.rawValue), .uuid(id)]
            ).first.map(KeyRecord.init(row:))
            if let updated {
                if before != updated.status.rawValue {
                    try Self.recordEvent(
                        SecurityEventKind(keyStatus: updated.status), providerID: updated.providerID, at: Int64(Date().timeIntervalSince1970),
                        data: { SecurityEventData.key(updated) }, db)
                }
                return updated
            }
            let exists = try db.rows("SELECT 1 FROM provider_keys WHERE id = ?", [.uuid(id)])
            throw exists.isEmpty ? StoreError.notFound : StoreError.tombstone
        }
    }
}
