import Foundation
import Synchronization
import VouchProtocol
import VouchStore
import VouchTokens

/// The verifier's view of the world, answered by the store: the bridge that keeps VouchTokens
/// free of I/O. One per request.
///
/// When the verifier tells it what it will look up (`prepare`), it reads all of it, the app
/// included when `fetchesApp`, in one store operation, and answers the questions that follow
/// from those rows when they are the ones planned; any other question goes to the store.
struct StoreVerificationContext: VerificationContext {
    let store: any Store
    let nonces: NonceIssuer
    let parsedKeys: ParsedKeyCache
    /// The app the request names.
    let appID: UUID
    /// The time of the request: registration secrets are judged at it.
    let now: Int64
    /// Whether `prepare` also reads the app's record (a sign-in needs it; the validation tool has
    /// it already).
    let fetchesApp: Bool
    private let prefetched = Prefetched()

    init(store: any Store, nonces: NonceIssuer, parsedKeys: ParsedKeyCache, appID: UUID, now: Int64, fetchesApp: Bool) {
        self.store = store
        self.nonces = nonces
        self.parsedKeys = parsedKeys
        self.appID = appID
        self.now = now
        self.fetchesApp = fetchesApp
    }

    func prepare(_ plan: LookupPlan) async throws {
        var asked = storeQuestions(for: plan.claims, now: now)
        asked.questions.includesApp = fetchesApp
        asked.questions.keyID = plan.layerKeyID
        asked.questions.applicationKey = plan.applicationKey
        let answers = try await store.signInStanding(asked.questions)
        prefetched.keep(Prefetched.Answers(plan: plan, asked: asked, store: answers, includesApp: fetchesApp))
    }

    /// The app's record: read with everything else when the verification got as far as
    /// `prepare`, read now otherwise.
    func app() async throws -> AppRecord? {
        if let answers = prefetched.answers, answers.includesApp { return answers.store.app }
        return try await store.app(id: appID)
    }

    func layerKey(id: UUID) async throws -> LayerVerificationKey? {
        let record: KeyRecord?
        if let answers = prefetched.answers, answers.plan.layerKeyID == id {
            record = answers.store.key
        } else {
            record = try await store.key(id: id)
        }
        guard let record else { return nil }
        // Keys are checked when uploaded; a row that no longer parses is damage, not a verdict.
        guard let publicKey = try? parsedKeys.key(id: record.id, pem: record.publicKeyPEM) else {
            throw StoreError.unavailable("stored public key \(id.lowercased) does not parse")
        }
        return LayerVerificationKey(id: record.id, providerID: record.providerID, status: record.status, publicKey: publicKey)
    }

    func providerBinding(providerID: UUID, appID: UUID) async throws -> ProviderBinding {
        guard let provider = try await store.provider(id: providerID) else { return .unknownProvider }
        return provider.appIDs.contains(appID) ? .bound : .notBound
    }

    /// The one-question look-ups below are what the protocol asks for; the verifier reaches the
    /// store through `claimStanding`, which answers them all in one operation.
    func isNonceUsable(_ nonce: String, now: Int64) async throws -> Bool {
        guard let opened = nonces.open(nonce, now: now) else { return false }
        return try await !store.serverNonceUsed(hash: opened.hash, expiresAt: opened.expiresAt)
    }

    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecret? {
        let record: RegistrationSecretRecord?
        if let answers = prefetched.answers, answers.plan.applicationKey == applicationKey {
            record = answers.store.registrationSecret
        } else {
            record = try await store.registrationSecret(applicationKey: applicationKey)
        }
        // A revoked secret is as good as none: its tokens answer `eit_key_not_found`.
        guard let record, record.isValid(at: now) else { return nil }
        return RegistrationSecret(applicationKey: record.applicationKey, appID: record.appID, secret: record.secret)
    }

    func isRegistrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool {
        try await store.registrationNonceSeen(appID: appID, nonce: nonce, now: now)
    }

    func isUserSuspended(appID: UUID, userID: String) async throws -> Bool {
        try await store.user(appID: appID, userID: userID)?.suspended ?? false
    }

    /// One store operation for every claim-based lookup, or none when `prepare` already read
    /// the answers to exactly these questions.
    func claimStanding(_ questions: ClaimQuestions, now: Int64) async throws -> ClaimStanding {
        if let answers = prefetched.answers, answers.plan.claims == questions, answers.asked.questions.now == now {
            return standing(answers.asked, answers.store)
        }
        let asked = storeQuestions(for: questions, now: now)
        return standing(asked, try await store.signInStanding(asked.questions))
    }

    /// The store's questions for the verifier's. The server nonce is opened here, once: its hash
    /// is what the store is asked about, and what the session will record. A forged, expired or
    /// other app's nonce needs no look-up: its standing is known now.
    private func storeQuestions(for questions: ClaimQuestions, now: Int64) -> AskedQuestions {
        var asked = AskedQuestions(questions: SignInQuestions(
            appID: questions.appID, providerID: questions.providerID,
            registrationNonce: questions.registrationNonce?.nonce, registrationNonceAppID: questions.registrationNonce?.appID,
            userID: questions.userID, now: now))
        if let nonce = questions.serverNonce {
            asked.opened = nonces.open(nonce, now: now)
            if let opened = asked.opened {
                if opened.admits(appID: questions.appID) {
                    asked.questions.serverNonce = ServerNonceKey(hash: opened.hash, expiresAt: opened.expiresAt)
                } else {
                    asked.knownNonceStanding = .boundToAnotherApp
                }
            } else {
                asked.knownNonceStanding = .unknown
            }
        }
        return asked
    }

    private func standing(_ asked: AskedQuestions, _ answers: SignInStanding) -> ClaimStanding {
        var standing = ClaimStanding()
        standing.serverNonce = asked.knownNonceStanding
        standing.providerBinding = answers.provider.map { provider in
            switch provider {
            case .unknown: .unknownProvider
            case .notBound: .notBound
            case .bound: .bound
            }
        }
        if let used = answers.serverNonceUsed, let opened = asked.opened {
            standing.serverNonce = used ? .used : .usable
            if !used { standing.serverNonceUse = ServerNonceUse(hash: opened.hash, expiresAt: opened.expiresAt) }
        }
        standing.registrationNonceSeen = answers.registrationNonceSeen
        standing.userSuspended = answers.userSuspended
        return standing
    }
}

/// The store's form of a verifier's questions, with what opening the server nonce told.
private struct AskedQuestions: Sendable {
    var questions: SignInQuestions
    var opened: NonceIssuer.Opened?
    /// The nonce's standing when it was settled without the store (forged, expired, other app's).
    var knownNonceStanding: NonceStanding?
}

/// What one `prepare` read, kept for the rest of the request.
private final class Prefetched: Sendable {
    struct Answers: Sendable {
        let plan: LookupPlan
        let asked: AskedQuestions
        let store: SignInStanding
        let includesApp: Bool
    }

    private let stored = Mutex<Answers?>(nil)

    var answers: Answers? { stored.withLock { $0 } }
    func keep(_ answers: Answers) { stored.withLock { $0 = answers } }
}
