import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// Every question in one statement, one round trip: the claim questions as flags, and the app,
    /// the key and the registration secret, when asked, as left-joined rows whose columns carry
    /// their table's prefix (`PrefixedRecordRow`). An unasked question binds NULL (or false for
    /// the app), which matches no row, and its answer is left out. The app, the key and the secret
    /// were three more statements on the same connection, a round trip each.
    public func signInStanding(_ questions: SignInQuestions) async throws -> SignInStanding {
        let providerID = questions.providerID
        let nonceHash = questions.serverNonce?.hash.bytea
        let registrationNonce = questions.registrationNonce
        let registrationAppID = questions.registrationNonceAppID ?? questions.appID
        let userID = questions.userID
        let keyID = questions.keyID
        let query: PostgresQuery = """
            SELECT
              EXISTS (SELECT 1 FROM providers WHERE id = \(providerID)) AS provider_known,
              EXISTS (SELECT 1 FROM provider_apps WHERE provider_id = \(providerID) AND app_id = \(questions.appID)) AS provider_bound,
              EXISTS (SELECT 1 FROM used_server_nonces WHERE hash = \(nonceHash)) AS nonce_used,
              EXISTS (SELECT 1 FROM registration_nonces
                      WHERE app_id = \(registrationAppID) AND nonce = \(registrationNonce) AND expires_at >= \(questions.now)) AS nonce_seen,
              COALESCE((SELECT suspended FROM users WHERE app_id = \(questions.appID) AND user_id = \(userID)), false) AS suspended,
              \(unescaped: PrefixedRecordRow.columns(AppRecord.postgresColumns, of: "a", as: "app")),
              \(unescaped: PrefixedRecordRow.columns(KeyRecord.postgresColumns, of: "k", as: "key")),
              \(unescaped: PrefixedRecordRow.columns(RegistrationSecretRecord.postgresColumns, of: "r", as: "secret"))
            FROM (VALUES (1)) AS one
            LEFT JOIN apps a ON \(questions.includesApp) AND a.id = \(questions.appID)
            LEFT JOIN provider_keys k ON k.id = \(keyID)
            LEFT JOIN registration_secrets r ON r.application_key = \(questions.applicationKey)
            """
        let row = try await single("signInStanding") { db in
            guard let row = try await db.rows(query).first else { throw StoreError.unavailable("sign-in lookup returned no row") }
            let record = PostgresRecordRow(row)
            let app = PrefixedRecordRow(record, prefix: "app", presentIf: "id")
            let key = PrefixedRecordRow(record, prefix: "key", presentIf: "id")
            let secret = PrefixedRecordRow(record, prefix: "secret", presentIf: "application_key")
            return (known: try record.bool("provider_known"), bound: try record.bool("provider_bound"),
                    nonceUsed: try record.bool("nonce_used"), nonceSeen: try record.bool("nonce_seen"),
                    suspended: try record.bool("suspended"),
                    app: try app.isPresent() ? AppRecord(row: app) : nil,
                    key: try key.isPresent() ? KeyRecord(row: key) : nil,
                    secret: try secret.isPresent() ? RegistrationSecretRecord(row: secret) : nil)
        }
        var standing = SignInStanding()
        if providerID != nil { standing.provider = row.bound ? .bound : (row.known ? .notBound : .unknown) }
        if nonceHash != nil { standing.serverNonceUsed = row.nonceUsed }
        if registrationNonce != nil { standing.registrationNonceSeen = row.nonceSeen }
        if userID != nil { standing.userSuspended = row.suspended }
        standing.app = row.app
        standing.key = row.key
        standing.registrationSecret = row.secret
        return standing
    }
}
