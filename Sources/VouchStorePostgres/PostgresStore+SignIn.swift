import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// Every question in one prepared statement, one round trip (`SignInStandingStatement`). The
    /// app, the key and the registration secret were three more statements on the same
    /// connection, a round trip each.
    public func signInStanding(_ questions: SignInQuestions) async throws -> SignInStanding {
        let row = try await single("signInStanding") { db in
            guard let row = try await db.rows(SignInStandingStatement(questions: questions)).first else {
                throw StoreError.unavailable("sign-in lookup returned no row")
            }
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
        if questions.providerID != nil { standing.provider = row.bound ? .bound : (row.known ? .notBound : .unknown) }
        if questions.serverNonce != nil { standing.serverNonceUsed = row.nonceUsed }
        if questions.registrationNonce != nil { standing.registrationNonceSeen = row.nonceSeen }
        if questions.userID != nil { standing.userSuspended = row.suspended }
        standing.app = row.app
        standing.key = row.key
        standing.registrationSecret = row.secret
        return standing
    }
}
