import Foundation

/// What a sign-in asks the store once the token's signature holds: the rows its claims name.
/// Each question is optional; an unasked one gets a `nil` answer.
public struct SignInQuestions: Sendable, Equatable {
    public var appID: UUID
    /// Layer: is this provider known, and bound to `appID`?
    public var providerID: UUID?
    /// Layer: was the server nonce with this hash used?
    public var serverNonceHash: [UInt8]?
    /// Sinch: was this client-made nonce seen for `registrationNonceAppID` (and not yet expired)?
    public var registrationNonce: String?
    public var registrationNonceAppID: UUID?
    /// Is this user of `appID` suspended?
    public var userID: String?
    /// The time registration nonces are judged at.
    public var now: Int64

    public init(appID: UUID, providerID: UUID? = nil, serverNonceHash: [UInt8]? = nil, registrationNonce: String? = nil,
                registrationNonceAppID: UUID? = nil, userID: String? = nil, now: Int64) {
        self.appID = appID
        self.providerID = providerID
        self.serverNonceHash = serverNonceHash
        self.registrationNonce = registrationNonce
        self.registrationNonceAppID = registrationNonceAppID
        self.userID = userID
        self.now = now
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

    public init(provider: Provider? = nil, serverNonceUsed: Bool? = nil, registrationNonceSeen: Bool? = nil,
                userSuspended: Bool? = nil) {
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
        if let hash = questions.serverNonceHash {
            standing.serverNonceUsed = try await serverNonceUsed(hash: hash)
        }
        if let nonce = questions.registrationNonce {
            standing.registrationNonceSeen = try await registrationNonceSeen(
                appID: questions.registrationNonceAppID ?? questions.appID, nonce: nonce, now: questions.now)
        }
        if let userID = questions.userID {
            standing.userSuspended = try await user(appID: questions.appID, userID: userID)?.suspended ?? false
        }
        return standing
    }
}
