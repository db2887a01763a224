import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    /// The unique constraints decide: a key id in use, or a fingerprint the provider has in any
    /// status, is `.alreadyExists`, even for two uploads racing on two instances.
    public func createKey(_ key: KeyRecord) async throws {
        try await transaction("createKey") { db in
            try await db.execute(
                """
                INSERT INTO provider_keys (id, provider_id, status, public_key_pem, fingerprint, created_at)
                VALUES (\(key.id), \(key.providerID), \(key.status.rawValue), \(key.publicKeyPEM),
                        \(key.fingerprint), \(key.createdAt))
                """)
            try await Self.recordEvent(.keyCreated, providerID: key.providerID, at: key.createdAt, data: SecurityEventData.key(key), db)
        }
    }

    public func key(id: UUID) async throws -> KeyRecord? {
        try await single("key") { db in
            try await db.rows("SELECT * FROM provider_keys WHERE id = \(id)").first.map(KeyRecord.init(postgres:))
        }
    }

    public func keys(ofProvider providerID: UUID) async throws -> [KeyRecord] {
        try await single("keys") { db in
            try await db.rows("SELECT * FROM provider_keys WHERE provider_id = \(providerID) ORDER BY created_at, seq")
                .map(KeyRecord.init(postgres:))
        }
    }

    /// The UPDATE's own condition refuses a tombstone. Under READ COMMITTED an UPDATE that waited
    /// for a concurrent deletion re-checks its condition on the deleted row and changes nothing,
    /// so no interleaving brings a deleted key back. When nothing changed the key is unknown or
    /// deleted; a deleted key stays deleted, so reading which one afterwards is safe.
    ///
    /// The row is locked first, to know whether the status moves (and so whether an event is due).
    public func setKeyStatus(id: UUID, to status: KeyStatus) async throws -> KeyRecord {
        try await transaction("setKeyStatus") { db in
            let before = try await db.rows("SELECT status FROM provider_keys WHERE id = \(id) FOR UPDATE")
                .first.map { try PostgresRecordRow($0).text("status") }
            let updated = try await db.rows(
                """
                UPDATE provider_keys SET status = \(status.rawValue)
                WHERE id = \(id) AND (status <> 'deleted' OR \(status.rawValue) = 'deleted') RETURNING *
                """
            ).first.map(KeyRecord.init(postgres:))
            if let updated {
                if before != updated.status.rawValue {
                    try await Self.recordEvent(
                        SecurityEventKind(keyStatus: updated.status), providerID: updated.providerID,
                        at: Int64(Date().timeIntervalSince1970), data: SecurityEventData.key(updated), db)
                }
                return updated
            }
            let exists = try await db.rows("SELECT 1 FROM provider_keys WHERE id = \(id)")
            throw exists.isEmpty ? StoreError.notFound : StoreError.tombstone
        }
    }
}
