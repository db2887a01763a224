import Foundation
import VouchStore

extension SQLiteStore {
    /// The catalogue's answers from `catalogueCache` where it holds them (see there why they are
    /// as fresh as the file), every other question in one read, and no read when nothing is left
    /// (a sign-in leaves the nonce's use and the user's suspension to its session's transaction,
    /// so with its catalogue rows kept it asks nothing). A nonce's use and a user's suspension,
    /// when asked, are always read.
    public func signInFacts(_ query: SignInFactsQuery) async throws -> SignInFacts {
        let (remaining, kept, ticket) = catalogueCache.answer(query)
        // A storm's sign-in: everything it asks is kept, and the answer is the cache's as it is.
        guard remaining.asksAnything else { return kept }
        var facts = try await readFacts(remaining)
        catalogueCache.keep(facts, asked: remaining, since: ticket)
        if let app = kept.app { facts.app = app }
        if let key = kept.key { facts.key = key }
        if let binding = kept.providerBinding { facts.providerBinding = binding }
        if let secret = kept.registrationSecret { facts.registrationSecret = secret }
        return facts
    }

    /// Every question in one read: one snapshot for the whole lot.
    private func readFacts(_ query: SignInFactsQuery) async throws -> SignInFacts {
        try await read("signInFacts") { db in
            var facts = SignInFacts()
            if let providerID = query.providerID {
                let row = try db.rows(
                    """
                    SELECT EXISTS (SELECT 1 FROM providers WHERE id = ?1) AS known,
                           EXISTS (SELECT 1 FROM provider_apps WHERE provider_id = ?1 AND app_id = ?2) AS bound
                    """,
                    [.uuid(providerID), .uuid(query.appID)]
                ).first
                facts.providerBinding = try row?.bool("bound") == true ? .bound : (try row?.bool("known") == true ? .notBound : .unknownProvider)
            }
            if let selector = query.sourceProvider {
                facts.sourceProvider = try Self.sourceProvider(selector, appID: query.appID, db)
            }
            if let nonce = query.serverNonce {
                facts.serverNonceUsed = try SQLiteNonceUse.serverNonceUsed(hash: nonce.hash, expiresAt: nonce.expiresAt, db)
            }
            if let nonce = query.registrationNonce {
                facts.registrationNonceSeen = try SQLiteNonceUse.registrationNonceSeen(
                    appID: query.appID, nonce: nonce, now: query.now, db)
            }
            if let userID = query.userID {
                facts.userSuspended =
                    try db.rows(
                        "SELECT suspended FROM users WHERE app_id = ? AND user_id = ?", [.uuid(query.appID), .text(userID)]
                    ).first?.bool("suspended") ?? false
            }
            if query.includesApp {
                facts.app = try db.rows("SELECT * FROM apps WHERE id = ?", [.uuid(query.appID)]).first.map(AppRecord.init(row:))
            }
            if let keyID = query.keyID {
                facts.key = try db.rows("SELECT * FROM provider_keys WHERE id = ?", [.uuid(keyID)]).first.map(KeyRecord.init(row:))
            }
            if let applicationKey = query.applicationKey {
                facts.registrationSecret = try db.rows(
                    "SELECT * FROM registration_secrets WHERE application_key = ?", [.uuid(applicationKey)]
                ).first.map(RegistrationSecretRecord.init(row:))
            }
            return facts
        }
    }
}
