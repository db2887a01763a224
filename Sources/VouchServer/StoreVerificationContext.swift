import Foundation
import VouchProtocol
import VouchStore
import VouchTokens

/// The verifier's view of the world, answered by the store: the bridge that keeps VouchTokens
/// free of I/O.
struct StoreVerificationContext: VerificationContext {
    let store: any Store
    let nonces: NonceIssuer
    let parsedKeys: ParsedKeyCache
    /// The time of the request: registration secrets are judged at it.
    let now: Int64

    func layerKey(id: UUID) async throws -> LayerVerificationKey? {
        guard let record = try await store.key(id: id) else { return nil }
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
        return try await !store.serverNonceUsed(hash: opened.hash)
    }

    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecret? {
        // A revoked secret is as good as none: its tokens answer `eit_key_not_found`.
        guard let record = try await store.registrationSecret(applicationKey: applicationKey),
              record.isValid(at: now) else { return nil }
        return RegistrationSecret(applicationKey: record.applicationKey, appID: record.appID, secret: record.secret)
    }

    func isRegistrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool {
        try await store.registrationNonceSeen(appID: appID, nonce: nonce, now: now)
    }

    func isUserSuspended(appID: UUID, userID: String) async throws -> Bool {
        try await store.user(appID: appID, userID: userID)?.suspended ?? false
    }

    /// One store operation for every claim-based lookup. The server nonce is opened here, once:
    /// its hash is what the store is asked about, and what the session will record.
    func claimStanding(_ questions: ClaimQuestions, now: Int64) async throws -> ClaimStanding {
        var storeQuestions = SignInQuestions(
            appID: questions.appID, providerID: questions.providerID,
            registrationNonce: questions.registrationNonce?.nonce, registrationNonceAppID: questions.registrationNonce?.appID,
            userID: questions.userID, now: now)
        var standing = ClaimStanding()
        var opened: NonceIssuer.Opened?
        if let nonce = questions.serverNonce {
            // A forged, expired or other app's nonce needs no lookup: its standing is known now.
            opened = nonces.open(nonce, now: now)
            if let opened {
                if opened.admits(appID: questions.appID) {
                    storeQuestions.serverNonceHash = opened.hash
                } else {
                    standing.serverNonce = .boundToAnotherApp
                }
            } else {
                standing.serverNonce = .unknown
            }
        }
        let answers = try await store.signInStanding(storeQuestions)
        standing.providerBinding = answers.provider.map { provider in
            switch provider {
            case .unknown: .unknownProvider
            case .notBound: .notBound
            case .bound: .bound
            }
        }
        if let used = answers.serverNonceUsed, let opened {
            standing.serverNonce = used ? .used : .usable
            if !used { standing.serverNonceUse = ServerNonceUse(hash: opened.hash, expiresAt: opened.expiresAt) }
        }
        standing.registrationNonceSeen = answers.registrationNonceSeen
        standing.userSuspended = answers.userSuspended
        return standing
    }
}
