import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    public func createRegistrationSecret(_ secret: RegistrationSecretRecord) async throws {
        try await exclusive("createRegistrationSecret") { db in
            try db.execute(
                "INSERT INTO registration_secrets (application_key, app_id, secret, created_at) VALUES (?, ?, ?, ?)",
                [.uuid(secret.applicationKey), .uuid(secret.appID), .bytes(secret.secret), .int64(secret.createdAt)])
        }
    }

    public func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecretRecord? {
        try await read("registrationSecret") { db in
            try db.rows(
                "SELECT * FROM registration_secrets WHERE application_key = ?", [.uuid(applicationKey)]
            ).first.map(RegistrationSecretRecord.init(row:))
        }
    }

    public func registrationSecrets(appID: UUID) async throws -> [RegistrationSecretRecord] {
        try await read("registrationSecrets") { db in
            try db.rows(
                "SELECT * FROM registration_secrets WHERE app_id = ? ORDER BY created_at, rowid", [.uuid(appID)]
            ).map(RegistrationSecretRecord.init(row:))
        }
    }

    public func revokeRegistrationSecret(applicationKey: UUID, appID: UUID, at: Int64) async throws -> RegistrationSecretRecord {
        try await exclusive("revokeRegistrationSecret") { db in
            // One statement decides: the earlier of the recorded and the requested time wins.
            let before = try db.rows(
                "SELECT revoked_at FROM registration_secrets WHERE application_key = ? AND app_id = ?",
                [.uuid(applicationKey), .uuid(appID)]
            ).first?.optionalInt64("revoked_at")
            let rows = try db.rows(
                """
                UPDATE registration_secrets SET revoked_at = MIN(COALESCE(revoked_at, ?), ?)
                WHERE application_key = ? AND app_id = ? RETURNING *
                """,
                [.int64(at), .int64(at), .uuid(applicationKey), .uuid(appID)])
            guard let row = rows.first else { throw StoreError.notFound }
            let secret = try RegistrationSecretRecord(row: row)
            if secret.revokedAt != before {
                try Self.recordEvent(
                    .registrationSecretRevoked, appID: appID, userID: nil, at: Int64(Date().timeIntervalSince1970),
                    data: { SecurityEventData.registrationSecretRevoked(secret) }, db)
            }
            return secret
        }
    }

    /// A nonce still counts as seen during its `expiresAt` second; it is free from the next one on.
    public func registrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool {
        try await read("registrationNonceSeen") { db in
            try SQLiteNonceUse.registrationNonceSeen(appID: appID, nonce: nonce, now: now, db)
        }
    }

    public func serverNonceUsed(hash: [UInt8], expiresAt: Int64) async throws -> Bool {
        try await read("serverNonceUsed") { db in
            try SQLiteNonceUse.serverNonceUsed(hash: hash, expiresAt: expiresAt, db)
        }
    }
}
