import Foundation
import VouchStore

extension SQLiteStore {
    /// The catalogue's answers from `catalogueCache` where it holds them (see there why they are
    /// as fresh as the file), every other question in one read, and no read when nothing is left
    /// (a sign-in leaves the nonce's use and the user's suspension to its session's transaction,
    /// so with its catalogue rows kept it asks nothing). A nonce's use and a user's suspension,
    /// when asked, are always read.
    public func signInStanding(_ questions: SignInQuestions) async throws -> SignInStanding {
        let (remaining, kept, ticket) = catalogueCache.answer(questions)
        // A storm's sign-in: everything it asks is kept, and the answer is the cache's as it is.
        guard remaining.asksAnything else { return kept }
        var standing = try await readStanding(remaining)
        catalogueCache.keep(standing, asked: remaining, since: ticket)
        if let app = kept.app { standing.app = app }
        if let key = kept.key { standing.key = key }
        if let provider = kept.provider { standing.provider = provider }
        if let secret = kept.registrationSecret { standing.registrationSecret = secret }
        return standing
    }

    /// Every question in one read: one snapshot for the whole lot.
    private func readStanding(_ questions: SignInQuestions) async throws -> SignInStanding {
        try await read("signInStanding") { db in
            var standing = SignInStanding()
            if let providerID = questions.providerID {
                let row = try db.rows(
                    """
                    SELECT EXISTS (SELECT 1 FROM providers WHERE id = ?1) AS known,
                           EXISTS (SELECT 1 FROM provider_apps WHERE provider_id = ?1 AND app_id = ?2) AS bound
                    """,
                    [.uuid(providerID), .uuid(questions.appID)]).first
                standing.provider = try row?.bool("bound") == true ? .bound : (try row?.bool("known") == true ? .notBound : .unknown)
            }
            if let nonce = questions.serverNonce {
                standing.serverNonceUsed = try SQLiteNonceUse.serverNonceUsed(hash: nonce.hash, expiresAt: nonce.expiresAt, db)
            }
            if let nonce = questions.registrationNonce {
                standing.registrationNonceSeen = try SQLiteNonceUse.registrationNonceSeen(
                    appID: questions.registrationNonceAppID ?? questions.appID, nonce: nonce, now: questions.now, db)
            }
            if let userID = questions.userID {
                standing.userSuspended = try db.rows(
                    "SELECT suspended FROM users WHERE app_id = ? AND user_id = ?", [.uuid(questions.appID), .text(userID)]
                ).first?.bool("suspended") ?? false
            }
            if questions.includesApp {
                standing.app = try db.rows("SELECT * FROM apps WHERE id = ?", [.uuid(questions.appID)]).first.map(AppRecord.init(row:))
            }
            if let keyID = questions.keyID {
                standing.key = try db.rows("SELECT * FROM provider_keys WHERE id = ?", [.uuid(keyID)]).first.map(KeyRecord.init(row:))
            }
            if let applicationKey = questions.applicationKey {
                standing.registrationSecret = try db.rows(
                    "SELECT * FROM registration_secrets WHERE application_key = ?", [.uuid(applicationKey)]
                ).first.map(RegistrationSecretRecord.init(row:))
            }
            return standing
        }
    }
}
