import Foundation
import VouchProtocol

/// What a sign-in's verification reads from the store: the app, the key or registration secret the
/// token names, and the rows its claims name, in one operation (one hop, one snapshot). It is asked
/// before the signature is checked, with what the token *says*; the verdict believes the answers
/// that claims name only for a signed token. Each question is optional; an unasked one gets a
/// `nil` answer.
public struct SignInFactsQuery: Sendable, Equatable {
    public var appID: UUID
    /// Also fetch the record of `appID` (a sign-in needs it; the validation tool has it already).
    public var includesApp: Bool
    /// Layer: the key a token's `kid` names.
    public var keyID: UUID?
    /// Sinch: the registration secret of this application key.
    public var applicationKey: UUID?
    /// Layer: is this provider known, and bound to `appID`?
    public var providerID: UUID?
    /// A token whose key comes from a provider's key source: that provider, by its id or by the
    /// exact issuer a token's `iss` names. Never answered from a cache.
    public var sourceProvider: ProviderSelector?
    /// Layer: was this server nonce used?
    public var serverNonce: ServerNonceUse?
    /// Sinch: was this client-made nonce seen for `appID` (and not yet expired at `now`)?
    public var registrationNonce: String?
    /// Is this user of `appID` suspended?
    public var userID: String?
    /// The time registration nonces are judged at.
    public var now: Int64

    public init(
        appID: UUID, providerID: UUID? = nil, serverNonce: ServerNonceUse? = nil, registrationNonce: String? = nil,
        userID: String? = nil, now: Int64, includesApp: Bool = false, keyID: UUID? = nil, applicationKey: UUID? = nil
    ) {
        self.appID = appID
        self.includesApp = includesApp
        self.keyID = keyID
        self.applicationKey = applicationKey
        self.providerID = providerID
        self.serverNonce = serverNonce
        self.registrationNonce = registrationNonce
        self.userID = userID
        self.now = now
    }

    /// Whether anything is asked: a sign-in whose catalogue rows are all kept asks nothing of the
    /// file, and then nothing need be read.
    public var asksAnything: Bool {
        providerID != nil || serverNonce != nil || registrationNonce != nil || userID != nil
            || includesApp || keyID != nil || applicationKey != nil || sourceProvider != nil
    }
}

/// The store's answers to `SignInFactsQuery`.
public struct SignInFacts: Sendable, Equatable {
    /// The app, when `includesApp` asked for it and it exists.
    public var app: AppRecord?
    /// The key named by `keyID`, when asked for and it exists (in any status).
    public var key: KeyRecord?
    /// The secret of `applicationKey`, when asked for and it exists (revoked or not: its validity
    /// is the caller's to judge, as with `registrationSecret(applicationKey:)`).
    public var registrationSecret: RegistrationSecretRecord?
    public var providerBinding: ProviderBinding?
    /// The provider `sourceProvider` selects, when it exists, and how it stands to `appID`.
    public var sourceProvider: SourceProviderFact?
    public var serverNonceUsed: Bool?
    public var registrationNonceSeen: Bool?
    /// `false` for a user with no row yet (a first sign-in).
    public var userSuspended: Bool?

    public init(
        providerBinding: ProviderBinding? = nil, serverNonceUsed: Bool? = nil, registrationNonceSeen: Bool? = nil,
        userSuspended: Bool? = nil, app: AppRecord? = nil, key: KeyRecord? = nil,
        registrationSecret: RegistrationSecretRecord? = nil
    ) {
        self.app = app
        self.key = key
        self.registrationSecret = registrationSecret
        self.providerBinding = providerBinding
        self.serverNonceUsed = serverNonceUsed
        self.registrationNonceSeen = registrationNonceSeen
        self.userSuspended = userSuspended
    }
}

/// A server nonce's single use as the store records it: the nonce's hash, and the expiry the nonce
/// carries (after which the record may go; a backend may lead its key with it, so that uses are
/// recorded in time order).
public struct ServerNonceUse: Sendable, Equatable {
    public var hash: [UInt8]
    public var expiresAt: Int64

    public init(hash: [UInt8], expiresAt: Int64) {
        self.hash = hash
        self.expiresAt = expiresAt
    }
}

/// The provider a `ProviderSelector` chose, and whether it serves the app signed in to.
public struct SourceProviderFact: Sendable, Equatable {
    public var provider: ProviderRecord
    public var boundToApp: Bool

    public init(provider: ProviderRecord, boundToApp: Bool) {
        self.provider = provider
        self.boundToApp = boundToApp
    }
}
