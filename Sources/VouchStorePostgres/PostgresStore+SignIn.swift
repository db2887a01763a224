import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// Every question in one prepared statement, one round trip (`SignInFactsStatement`).
    public func signInFacts(_ query: SignInFactsQuery) async throws -> SignInFacts {
        let row = try await single("signInFacts") { db in
            guard let row = try await db.rows(SignInFactsStatement(query: query)).first else {
                throw StoreError.unavailable("sign-in lookup returned no row")
            }
            let record = PostgresRecordRow(row)
            let app = PrefixedRecordRow(record, prefix: "app", presentIf: "id")
            let key = PrefixedRecordRow(record, prefix: "key", presentIf: "id")
            let secret = PrefixedRecordRow(record, prefix: "secret", presentIf: "application_key")
            // Asked only by tokens whose key is fetched, never by the Layer sign-ins the statement serves.
            let sourceProvider = try await query.sourceProvider.asyncFlatMap { try await Self.sourceProvider($0, appID: query.appID, db) }
            return (
                sourceProvider: sourceProvider,
                known: try record.bool("provider_known"), bound: try record.bool("provider_bound"),
                nonceUsed: try record.bool("nonce_used"), nonceSeen: try record.bool("nonce_seen"),
                suspended: try record.bool("suspended"),
                app: try app.isPresent() ? AppRecord(row: app) : nil,
                key: try key.isPresent() ? KeyRecord(row: key) : nil,
                secret: try secret.isPresent() ? RegistrationSecretRecord(row: secret) : nil
            )
        }
        var facts = SignInFacts()
        if query.providerID != nil { facts.providerBinding = row.bound ? .bound : (row.known ? .notBound : .unknownProvider) }
        if query.serverNonce != nil { facts.serverNonceUsed = row.nonceUsed }
        if query.registrationNonce != nil { facts.registrationNonceSeen = row.nonceSeen }
        if query.userID != nil { facts.userSuspended = row.suspended }
        facts.sourceProvider = row.sourceProvider
        facts.app = row.app
        facts.key = row.key
        facts.registrationSecret = row.secret
        return facts
    }
}

extension Optional where Wrapped: Sendable {
    /// `flatMap` with an asynchronous transform.
    fileprivate func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
