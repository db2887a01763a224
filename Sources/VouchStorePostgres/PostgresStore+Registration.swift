import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    public func createRegistrationSecret(_ secret: RegistrationSecretRecord) async throws {
        try await single("createRegistrationSecret") { db in
            try await db.execute(
                """
                INSERT INTO registration_secrets (application_key, app_id, secret, created_at)
                VALUES (\(secret.applicationKey), \(secret.appID), \(secret.secret.bytea), \(secret.createdAt))
                """)
        }
    }

    public func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecretRecord? {
        try await single("registrationSecret") { db in
            try await db.rows("SELECT * FROM registration_secrets WHERE application_key = \(applicationKey)")
                .first.map(RegistrationSecretRecord.init(postgres:))
        }
    }

    public func registrationSecrets(appID: UUID) async throws -> [RegistrationSecretRecord] {
        try await single("registrationSecrets") { db in
            try await db.rows("SELECT * FROM registration_secrets WHERE app_id = \(appID) ORDER BY created_at, seq")
                .map(RegistrationSecretRecord.init(postgres:))
        }
    }

    /// One statement decides: the earlier of the recorded and the requested time wins, also when
    /// two revocations race (the second re-reads the first's value).
    public func revokeRegistrationSecret(applicationKey: UUID, appID: UUID, at: Int64) async throws -> RegistrationSecretRecord {
        try await transaction("revokeRegistrationSecret") { db in
            let before = try await db.rows(
                """
                SELECT revoked_at FROM registration_secrets
                WHERE application_key = \(applicationKey) AND app_id = \(appID) FOR UPDATE
                """
            ).first.map { try PostgresRecordRow($0).optionalInt64("revoked_at") }
            let rows = try await db.rows(
                """
                UPDATE registration_secrets SET revoked_at = LEAST(COALESCE(revoked_at, \(at)), \(at))
                WHERE application_key = \(applicationKey) AND app_id = \(appID) RETURNING *
                """)
            guard let row = rows.first else { throw StoreError.notFound }
            let secret = try RegistrationSecretRecord(postgres: row)
            if secret.revokedAt != before ?? nil {
                try await Self.recordEvent(
                    .registrationSecretRevoked, appID: appID, userID: nil, at: Int64(Date().timeIntervalSince1970),
                    data: SecurityEventData.registrationSecretRevoked(secret), db)
            }
            return secret
        }
    }

    public func registrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool {
        try await single("registrationNonceSeen") { db in
            !(try await db.rows(
                """
                SELECT 1 FROM registration_nonces WHERE app_id = \(appID) AND nonce = \(nonce) AND expires_at >= \(now)
                """
            ).isEmpty)
        }
    }

    /// Uses are keyed by hash alone here; the expiry is SQLite's ordering device.
    public func serverNonceUsed(hash: [UInt8], expiresAt: Int64) async throws -> Bool {
        try await single("serverNonceUsed") { db in
            !(try await db.rows("SELECT 1 FROM used_server_nonces WHERE hash = \(hash.bytea)").isEmpty)
        }
    }
}
