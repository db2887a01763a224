import Foundation
import VouchStore

// No cache holds service credentials: their writes invalidate nothing, and every look-up by hash
// reads the file, so a revocation is refused by the very next request.
extension SQLiteStore {
    /// The app's foreign key makes an unknown app `.notFound`; the primary key and the unique
    /// hash make an id or a hash in use `.alreadyExists` (`StoreError.from(sqlite:)`).
    public func createServiceCredential(_ credential: ServiceCredentialRecord) async throws {
        try await exclusive("createServiceCredential", invalidating: .none) { db in
            try db.execute(
                "INSERT INTO service_credentials (id, app_id, name, credential_hash, created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .uuid(credential.id), .uuid(credential.appID), .text(credential.name), .bytes(credential.credentialHash),
                    .int64(credential.createdAt),
                ])
        }
    }

    public func serviceCredential(hash: [UInt8]) async throws -> ServiceCredentialRecord? {
        try await read("serviceCredential") { db in
            try db.rows("SELECT * FROM service_credentials WHERE credential_hash = ?", [.bytes(hash)])
                .first.map(ServiceCredentialRecord.init(row:))
        }
    }

    /// Ties on `created_at` (same second) are broken by id, as PostgreSQL's listing does.
    public func serviceCredentials(appID: UUID) async throws -> [ServiceCredentialRecord] {
        try await read("serviceCredentials") { db in
            try db.rows("SELECT * FROM service_credentials WHERE app_id = ? ORDER BY created_at, id", [.uuid(appID)])
                .map(ServiceCredentialRecord.init(row:))
        }
    }

    /// One statement: the first revocation's time is kept (`COALESCE`), and a credential of
    /// another app matches no row, so it is `.notFound` as an unknown one is.
    public func revokeServiceCredential(id: UUID, appID: UUID, now: Int64) async throws -> ServiceCredentialRecord {
        try await exclusive("revokeServiceCredential", invalidating: .none) { db in
            let rows = try db.rows(
                "UPDATE service_credentials SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND app_id = ? RETURNING *",
                [.int64(now), .uuid(id), .uuid(appID)])
            guard let row = rows.first else { throw StoreError.notFound }
            return try ServiceCredentialRecord(row: row)
        }
    }
}
