import Foundation
import Synchronization
import VouchProtocol
import VouchStore
import VouchTokens

/// The verifier's view of the world, answered by the store: the bridge that keeps VouchTokens
/// free of I/O. One per request.
///
/// When the verifier tells it what it will look up (`prepare`), it reads all of it, the app
/// included for a sign-in, in one store operation, and answers the questions that follow from
/// those rows when they are the ones planned; any other question goes to the store.
struct StoreVerificationContext: VerificationContext {
    /// What the verification is for, which decides what the store is asked before the verdict.
    enum Purpose: Sendable {
        /// `POST /sessions`. The app's record is read with the rest. The nonce's use and the
        /// user's suspension (PROTOCOL §5.4 #21–#23) are not read: the session's transaction
        /// records the nonce's use and reads the user's row anyway, and refuses the sign-in with
        /// the same reasons when either fails (`Authenticator.signIn`). They are the last rules,
        /// so a token reaches that transaction only when every other rule held and the first
        /// broken rule is still the one reported; reading them before would read the same rows
        /// twice, and could only answer what the transaction decides again.
        case signIn
        /// The validation tool: it writes nothing, so the store is asked everything; it has the
        /// app's record already.
        case validation
    }

    let store: any Store
    let nonces: NonceIssuer
    let parsedKeys: ParsedKeyCache
    /// The app the request names.
    let appID: UUID
    /// The time of the request: registration secrets are judged at it.
    let now: Int64
    let purpose: Purpose
    private let prefetched = Prefetched()

    init(store: any Store, nonces: NonceIssuer, parsedKeys: ParsedKeyCache, appID: UUID, now: Int64, purpose: Purpose) {
        self.store = store
        self.nonces = nonces
        self.parsedKeys = parsedKeys
        self.appID = appID
        self.now = now
        self.purpose = purpose
    }

    /// Whether `prepare` also reads the app's record.
    private var fetchesApp: Bool { purpose == .signIn }

    func prepare(_ plan: LookupPlan) async throws {
        let asked = storeQuestions(for: plan.claims, now: now, includesApp: fetchesApp,
                                   keyID: plan.layerKeyID, applicationKey: plan.applicationKey)
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
        // The planned key is read where the answers hold it: a copy of the record would take a
        // reference to each of its strings, which the catalogue cache shares with every sign-in.
        if let answers = prefetched.answers, answers.plan.layerKeyID == id {
            return try answers.store.key.map { try verificationKey($0) }
        }
        return try await store.key(id: id).map { try verificationKey($0) }
    }

    private func verificationKey(_ record: KeyRecord) throws -> LayerVerificationKey {
        // Keys are checked when uploaded; a row that no longer parses is damage, not a verdict.
        guard let publicKey = try? parsedKeys.key(id: record.id, pem: record.publicKeyPEM) else {
            throw StoreError.unavailable("stored public key \(record.id.lowercased) does not parse")
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
        if let answers = prefetched.answers, answers.answer(questions, now: now) {
            return answers.standing
        }
        let asked = storeQuestions(for: questions, now: now)
        return Self.standing(asked, try await store.signInStanding(asked.questions))
    }

    /// The store's questions for the verifier's. The server nonce is opened here, once: its hash
    /// is what the store is asked about, and what the session will record. A forged, expired or
    /// other app's nonce needs no look-up: its standing is known now. For a sign-in, what the
    /// session's transaction decides is not asked (see `Purpose.signIn`).
    private func storeQuestions(for questions: ClaimQuestions, now: Int64, includesApp: Bool = false,
                                keyID: UUID? = nil, applicationKey: UUID? = nil) -> AskedQuestions {
        let asksUse = purpose == .validation
        var asked = AskedQuestions(questions: SignInQuestions(
            appID: questions.appID, providerID: questions.providerID,
            registrationNonce: asksUse ? questions.registrationNonce?.nonce : nil,
            registrationNonceAppID: asksUse ? questions.registrationNonce?.appID : nil,
            userID: asksUse ? questions.userID : nil, now: now, includesApp: includesApp,
            keyID: keyID, applicationKey: applicationKey))
        if let nonce = questions.serverNonce {
            asked.opened = nonces.open(nonce, now: now)
            if let opened = asked.opened {
                if !opened.admits(appID: questions.appID) {
                    asked.knownNonceStanding = .boundToAnotherApp
                } else if asksUse {
                    asked.questions.serverNonce = ServerNonceKey(hash: opened.hash, expiresAt: opened.expiresAt)
                } else {
                    asked.knownNonceStanding = .usable
                }
            } else {
                asked.knownNonceStanding = .unknown
            }
        }
        return asked
    }

    fileprivate static func standing(_ asked: AskedQuestions, _ answers: SignInStanding) -> ClaimStanding {
        var standing = ClaimStanding()
        standing.serverNonce = asked.knownNonceStanding
        if asked.knownNonceStanding == .usable, let opened = asked.opened {
            // A sign-in's: genuine, unexpired and for this app; whether it is unused, and whether
            // the user is in good standing, the session's transaction decides (`Purpose.signIn`).
            standing.serverNonceUse = ServerNonceUse(hash: opened.hash, expiresAt: opened.expiresAt)
        }
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
    /// The nonce's standing when it was settled without the store (forged, expired, other app's;
    /// or, for a sign-in, genuine and left to the session's transaction).
    var knownNonceStanding: NonceStanding?
}

/// What one `prepare` read, kept for the rest of the request.
private final class Prefetched: Sendable {
    /// A class, not a struct: the verifier asks for the answers several times a sign-in, and a
    /// struct of this many strings and records was copied out from under the lock each time,
    /// ~90 reference-count operations a sign-in, where a reference is one.
    final class Answers: Sendable {
        let plan: LookupPlan
        let asked: AskedQuestions
        let store: SignInStanding
        let includesApp: Bool

        init(plan: LookupPlan, asked: AskedQuestions, store: SignInStanding, includesApp: Bool) {
            self.plan = plan
            self.asked = asked
            self.store = store
            self.includesApp = includesApp
        }

        /// Whether these are the answers to `questions` asked at `now`, as planned.
        func answer(_ questions: ClaimQuestions, now: Int64) -> Bool {
            plan.claims == questions && asked.questions.now == now
        }

        /// The verifier's standing, made here from the fields it needs rather than from copies
        /// of the questions and the store's answer (records the catalogue cache shares included).
        var standing: ClaimStanding { StoreVerificationContext.standing(asked, store) }
    }

    private let stored = Mutex<Answers?>(nil)

    var answers: Answers? { stored.withLock { $0 } }
    func keep(_ answers: Answers) { stored.withLock { $0 = answers } }
}
