import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// The app's foreign key makes an unknown app `.notFound` (23503); the primary key and the
    /// unique hash make an id or a hash in use `.alreadyExists` (23505).
    public func createServiceCredential(_ credential: ServiceCredentialRecord) async throws {
        try await single("createServiceCredential") { db in
            try await db.execute(
                """
                INSERT INTO service_credentials (id, app_id, name, credential_hash, created_at)
                VALUES (\(credential.id), \(credential.appID), \(credential.name), \(credential.credentialHash.bytea), \(credential.createdAt))
                """)
        }
    }

    public func serviceCredential(hash: [UInt8]) async throws -> ServiceCredentialRecord? {
        try await single("serviceCredential") { db in
            try await db.rows("SELECT * FROM service_credentials WHERE credential_hash = \(hash.bytea)")
                .first.map(ServiceCredentialRecord.init(postgres:))
        }
    }

    /// Ties on `created_at` (same second) are broken by id, as SQLite's listing does (a uuid
    /// orders as its lower-case text does).
    public func serviceCredentials(appID: UUID) async throws -> [ServiceCredentialRecord] {
        try await single("serviceCredentials") { db in
            try await db.rows("SELECT * FROM service_credentials WHERE app_id = \(appID) ORDER BY created_at, id")
                .map(ServiceCredentialRecord.init(postgres:))
        }
    }

    /// One statement: the first revocation's time is kept (`COALESCE`, which a racing revocation
    /// re-reads after the first commits), and a credential of another app matches no row, so it
    /// is `.notFound` as an unknown one is.
    public func revokeServiceCredential(id: UUID, appID: UUID, now: Int64) async throws -> ServiceCredentialRecord {
        try await single("revokeServiceCredential") { db in
            let rows = try await db.rows(
                """
                UPDATE service_credentials SET revoked_at = COALESCE(revoked_at, \(now))
                WHERE id = \(id) AND app_id = \(appID) RETURNING *
                """)
            guard let row = rows.first else { throw StoreError.notFound }
            return try ServiceCredentialRecord(postgres: row)
        }
    }
}
