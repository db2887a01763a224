import Foundation

/// What a sign-in asks the store: the app, the key the token names, and the rows its claims name,
/// in one operation (one hop, one snapshot) instead of one per rule. It is asked before the
/// signature is checked, with what the token *says*; the verifier reads each answer only when its
/// rule comes, and the claim-based ones only for a signed token.
/// Each question is optional; an unasked one gets a `nil` answer.
public struct SignInQuestions: Sendable, Equatable {
    public var appID: UUID
    /// Layer: is this provider known, and bound to `appID`?
    public var providerID: UUID?
    /// Layer: was this server nonce used?
    public var serverNonce: ServerNonceKey?
    /// Sinch: was this client-made nonce seen for `registrationNonceAppID` (and not yet expired)?
    public var registrationNonce: String?
    public var registrationNonceAppID: UUID?
    /// Is this user of `appID` suspended?
    public var userID: String?
    /// The time registration nonces are judged at.
    public var now: Int64
    /// Also fetch the record of `appID` (a sign-in needs it; the validation tool has it already).
    public var includesApp: Bool
    /// Layer: also fetch the key a token's `kid` names, so that a sign-in reads everything its
    /// verification needs in this one operation.
    public var keyID: UUID?
    /// Sinch: also fetch the registration secret of this application key.
    public var applicationKey: UUID?

    public init(appID: UUID, providerID: UUID? = nil, serverNonce: ServerNonceKey? = nil, registrationNonce: String? = nil,
                registrationNonceAppID: UUID? = nil, userID: String? = nil, now: Int64,
                includesApp: Bool = false, keyID: UUID? = nil, applicationKey: UUID? = nil) {
        self.appID = appID
        self.includesApp = includesApp
        self.keyID = keyID
        self.applicationKey = applicationKey
        self.providerID = providerID
        self.serverNonce = serverNonce
        self.registrationNonce = registrationNonce
        self.registrationNonceAppID = registrationNonceAppID
        self.userID = userID
        self.now = now
    }

    /// Whether anything is asked: a sign-in whose catalogue rows are all kept asks nothing of the
    /// file, and then nothing need be read.
    public var asksAnything: Bool {
        providerID != nil || serverNonce != nil || registrationNonce != nil || userID != nil
            || includesApp || keyID != nil || applicationKey != nil
    }
}

/// The store's answers to `SignInQuestions`.
public struct SignInStanding: Sendable, Equatable {
    public enum Provider: Sendable, Equatable {
        case unknown
        case notBound
        case bound
    }

    public var provider: Provider?
    public var serverNonceUsed: Bool?
    public var registrationNonceSeen: Bool?
    /// `false` for a user with no row yet (a first sign-in).
    public var userSuspended: Bool?
    /// The app, when `includesApp` asked for it and it exists.
    public var app: AppRecord?
    /// The key named by `keyID`, when asked for and it exists.
    public var key: KeyRecord?
    /// The secret of `applicationKey`, when asked for and it exists (revoked or not: its validity
    /// is the caller's to judge, as with `registrationSecret(applicationKey:)`).
    public var registrationSecret: RegistrationSecretRecord?

    public init(provider: Provider? = nil, serverNonceUsed: Bool? = nil, registrationNonceSeen: Bool? = nil,
                userSuspended: Bool? = nil, app: AppRecord? = nil, key: KeyRecord? = nil,
                registrationSecret: RegistrationSecretRecord? = nil) {
        self.app = app
        self.key = key
        self.registrationSecret = registrationSecret
        self.provider = provider
        self.serverNonceUsed = serverNonceUsed
        self.registrationNonceSeen = registrationNonceSeen
        self.userSuspended = userSuspended
    }
}

extension Store {
    /// One read per question; a backend that can answer in one round trip overrides this.
    public func signInStanding(_ questions: SignInQuestions) async throws -> SignInStanding {
        var standing = SignInStanding()
        if let providerID = questions.providerID {
            if let provider = try await provider(id: providerID) {
                standing.provider = provider.appIDs.contains(questions.appID) ? .bound : .notBound
            } else {
                standing.provider = .unknown
            }
        }
        if let nonce = questions.serverNonce {
            standing.serverNonceUsed = try await serverNonceUsed(hash: nonce.hash, expiresAt: nonce.expiresAt)
        }
        if let nonce = questions.registrationNonce {
            standing.registrationNonceSeen = try await registrationNonceSeen(
                appID: questions.registrationNonceAppID ?? questions.appID, nonce: nonce, now: questions.now)
        }
        if let userID = questions.userID {
            standing.userSuspended = try await user(appID: questions.appID, userID: userID)?.suspended ?? false
        }
        if questions.includesApp { standing.app = try await app(id: questions.appID) }
        if let keyID = questions.keyID { standing.key = try await key(id: keyID) }
        if let applicationKey = questions.applicationKey {
            standing.registrationSecret = try await registrationSecret(applicationKey: applicationKey)
        }
        return standing
    }
}

/// A server nonce's use as the store records it: the nonce's hash, and the expiry the nonce
/// carries (a backend may lead its key with it, so that uses are recorded in time order).
public struct ServerNonceKey: Sendable, Equatable {
    public var hash: [UInt8]
    public var expiresAt: Int64

    public init(hash: [UInt8], expiresAt: Int64) {
        self.hash = hash
        self.expiresAt = expiresAt
    }
}
