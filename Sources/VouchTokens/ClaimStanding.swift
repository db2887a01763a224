import Foundation

/// What a signed token's claims name that only the world can answer, asked of the context in one
/// call once the signature holds (PROTOCOL §5.4 #16, #17, #21–#23), so that a context backed by
/// a database can answer in one round trip instead of one per rule.
public struct ClaimQuestions: Sendable, Equatable {
    /// The app the sign-in is for.
    public var appID: UUID
    /// Layer: the provider in `iss`, when it is the key's provider (#16, #17).
    public var providerID: UUID?
    /// Layer: the server-issued nonce in `nce` (#21).
    public var serverNonce: String?
    /// Sinch: the client-made nonce and the app of the secret that signed it (#22).
    public var registrationNonce: RegistrationNonce?
    /// The user the token names (#23), when its claim is well-formed.
    public var userID: String?

    public struct RegistrationNonce: Sendable, Equatable {
        public var appID: UUID
        public var nonce: String

        public init(appID: UUID, nonce: String) {
            self.appID = appID
            self.nonce = nonce
        }
    }

    public init(appID: UUID, providerID: UUID? = nil, serverNonce: String? = nil,
                registrationNonce: RegistrationNonce? = nil, userID: String? = nil) {
        self.appID = appID
        self.providerID = providerID
        self.serverNonce = serverNonce
        self.registrationNonce = registrationNonce
        self.userID = userID
    }
}

/// The answers to `ClaimQuestions`; each is `nil` when its question was not asked.
public struct ClaimStanding: Sendable, Equatable {
    public var providerBinding: ProviderBinding?
    public var serverNonce: NonceStanding?
    /// What the session that consumes a usable server nonce must record, when the context knows:
    /// carried into the verified token so that the nonce is opened once per sign-in.
    public var serverNonceUse: ServerNonceUse?
    public var registrationNonceSeen: Bool?
    public var userSuspended: Bool?

    public init(providerBinding: ProviderBinding? = nil, serverNonce: NonceStanding? = nil,
                serverNonceUse: ServerNonceUse? = nil, registrationNonceSeen: Bool? = nil, userSuspended: Bool? = nil) {
        self.providerBinding = providerBinding
        self.serverNonce = serverNonce
        self.serverNonceUse = serverNonceUse
        self.registrationNonceSeen = registrationNonceSeen
        self.userSuspended = userSuspended
    }
}

/// A usable server nonce as its issuer opened it: the hash its single use is recorded under and
/// the time after which that record may go.
public struct ServerNonceUse: Sendable, Equatable {
    public var hash: [UInt8]
    public var expiresAt: Int64

    public init(hash: [UInt8], expiresAt: Int64) {
        self.hash = hash
        self.expiresAt = expiresAt
    }
}

extension VerificationContext {
    /// Asks the one-question methods in the order of §5.4; a context that can answer everything
    /// in one round trip overrides this.
    public func claimStanding(_ questions: ClaimQuestions, now: Int64) async throws -> ClaimStanding {
        var standing = ClaimStanding()
        if let providerID = questions.providerID {
            standing.providerBinding = try await providerBinding(providerID: providerID, appID: questions.appID)
        }
        if let nonce = questions.serverNonce {
            standing.serverNonce = try await nonceStanding(nonce, appID: questions.appID, now: now)
        }
        if let registration = questions.registrationNonce {
            standing.registrationNonceSeen = try await isRegistrationNonceSeen(appID: registration.appID, nonce: registration.nonce, now: now)
        }
        if let userID = questions.userID {
            standing.userSuspended = try await isUserSuspended(appID: questions.appID, userID: userID)
        }
        return standing
    }
}
