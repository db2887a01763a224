import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// Every claim question in one statement, one round trip; the app, the key and the
    /// registration secret, when asked, in one more each on the same connection. An unasked question binds NULL, which matches no
    /// row, and its answer is left out.
    public func signInStanding(_ questions: SignInQuestions) async throws -> SignInStanding {
        let providerID = questions.providerID
        let nonceHash = questions.serverNonce?.hash.bytea
        let registrationNonce = questions.registrationNonce
        let registrationAppID = questions.registrationNonceAppID ?? questions.appID
        let userID = questions.userID
        let keyID = questions.keyID
        let row = try await single("signInStanding") { db in
            let rows = try await db.rows("""
                SELECT
                  EXISTS (SELECT 1 FROM providers WHERE id = \(providerID)) AS provider_known,
                  EXISTS (SELECT 1 FROM provider_apps WHERE provider_id = \(providerID) AND app_id = \(questions.appID)) AS provider_bound,
                  EXISTS (SELECT 1 FROM used_server_nonces WHERE hash = \(nonceHash)) AS nonce_used,
                  EXISTS (SELECT 1 FROM registration_nonces
                          WHERE app_id = \(registrationAppID) AND nonce = \(registrationNonce) AND expires_at >= \(questions.now)) AS nonce_seen,
                  COALESCE((SELECT suspended FROM users WHERE app_id = \(questions.appID) AND user_id = \(userID)), false) AS suspended
                """)
            guard let row = rows.first else { throw StoreError.unavailable("sign-in lookup returned no row") }
            let record = PostgresRecordRow(row)
            // The app and the key on the same connection, right after: rows of their own shape.
            var app: AppRecord?
            if questions.includesApp {
                app = try await db.rows("SELECT * FROM apps WHERE id = \(questions.appID)").first.map(AppRecord.init(postgres:))
            }
            var key: KeyRecord?
            if let keyID {
                key = try await db.rows("SELECT * FROM provider_keys WHERE id = \(keyID)").first.map(KeyRecord.init(postgres:))
            }
            var secret: RegistrationSecretRecord?
            if let applicationKey = questions.applicationKey {
                secret = try await db.rows("SELECT * FROM registration_secrets WHERE application_key = \(applicationKey)")
                    .first.map(RegistrationSecretRecord.init(postgres:))
            }
            return (known: try record.bool("provider_known"), bound: try record.bool("provider_bound"),
                    nonceUsed: try record.bool("nonce_used"), nonceSeen: try record.bool("nonce_seen"),
                    suspended: try record.bool("suspended"), app: app, key: key, secret: secret)
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
