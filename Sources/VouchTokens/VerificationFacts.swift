import Foundation
import VouchProtocol
import _CryptoExtras

/// A provider's public key as the verifier needs it.
public struct LayerVerificationKey: Sendable {
    public var id: UUID
    public var providerID: UUID
    public var status: KeyStatus
    public var publicKey: _RSA.Signing.PublicKey

    public init(id: UUID, providerID: UUID, status: KeyStatus, publicKey: _RSA.Signing.PublicKey) {
        self.id = id
        self.providerID = providerID
        self.status = status
        self.publicKey = publicKey
    }
}

/// A Sinch application key's secret and the app it belongs to.
public struct RegistrationSecret: Sendable {
    public var applicationKey: UUID
    public var appID: UUID
    public var secret: [UInt8]

    public init(applicationKey: UUID, appID: UUID, secret: [UInt8]) {
        self.applicationKey = applicationKey
        self.appID = appID
        self.secret = secret
    }
}

/// What a server nonce is, as seen by a sign-in to one app (PROTOCOL §5.4 #21).
public enum NonceStanding: Sendable, Equatable {
    /// Genuine, unexpired, unused, and issued for this app or for any app.
    case usable
    /// Not issued by this server, or expired.
    case unknown
    /// Already admitted a sign-in.
    case used
    /// Issued with another app's `app_id` (PROTOCOL §8.4): it admits a sign-in to that app only.
    case boundToAnotherApp
}

/// Everything about the world that the rules of PROTOCOL §5.4 read, gathered for one `TokenPlan`
/// before the verdict, so that the verdict is a pure function of the token, these facts and the
/// time.
///
/// Each fact answers what the plan names; the verdict reads the ones that depend on claims only
/// once the signature holds, so facts about an unverified token's claims never change its verdict.
/// `nil` means "not known here", and its meaning is per fact, below.
public struct VerificationFacts: Sendable {
    /// Layer, #9–#12: the key `TokenPlan.keyID` names; `nil` when there is none (`eit_key_not_found`).
    public var layerKey: LayerVerificationKey?
    /// Layer, #16–#17: how `TokenPlan.providerID` stands to the app; `nil` is judged as an unknown
    /// provider.
    public var providerBinding: ProviderBinding?
    /// Layer, #21: `TokenPlan.serverNonce`'s standing; `nil` is judged as unknown.
    public var serverNonce: NonceStanding?
    /// Sinch, #9–#12: the valid secret of `TokenPlan.applicationKey`; `nil` when there is none or
    /// it was revoked (`eit_key_not_found`).
    public var registrationSecret: RegistrationSecret?
    /// Sinch, #22: whether `TokenPlan.registrationNonce` was seen for the app. `nil` leaves the
    /// rule to whoever consumes the nonce: Vouch's session transaction records it and refuses a
    /// replay with this same reason (`TokenProfile.usedNonceRejection`).
    public var registrationNonceSeen: Bool?
    /// #23: whether `TokenPlan.userID` is suspended in the app. `nil` leaves the rule to whoever
    /// creates the session, as for `registrationNonceSeen`.
    public var userSuspended: Bool?
    /// A fetched key's token (`TokenPlan.sourceProvider`): the provider it selects, `nil` when
    /// none matches.
    public var sourceProvider: KeySourceProvider?
    /// The key `TokenPlan.sourceKeyID` names in that provider's fetched set.
    public var sourceKey: SourceKeyLookup?
    /// #25: whether the ID token (`TokenPlan.replayID`) already signed a user in. `nil` leaves the
    /// rule to whoever creates the session.
    public var idTokenUsed: Bool?

    public init(
        layerKey: LayerVerificationKey? = nil, providerBinding: ProviderBinding? = nil,
        serverNonce: NonceStanding? = nil, registrationSecret: RegistrationSecret? = nil,
        registrationNonceSeen: Bool? = nil, userSuspended: Bool? = nil
    ) {
        self.layerKey = layerKey
        self.providerBinding = providerBinding
        self.serverNonce = serverNonce
        self.registrationSecret = registrationSecret
        self.registrationNonceSeen = registrationNonceSeen
        self.userSuspended = userSuspended
    }
}

/// A provider with a key source, as a token that names it sees it.
public struct KeySourceProvider: Sendable, Equatable {
    public var providerID: UUID
    /// Whether the provider has a key source at all (a token naming a provider without one has a
    /// `kid` that names no key).
    public var hasKeySource: Bool
    public var issuer: String?
    public var clientID: String?
    public var federated: Bool
    public var algorithm: SourceKeyAlgorithm
    /// Whether the provider is bound to the app signed in to (#17).
    public var boundToApp: Bool

    public init(
        providerID: UUID, hasKeySource: Bool, issuer: String?, clientID: String?, federated: Bool,
        algorithm: SourceKeyAlgorithm, boundToApp: Bool
    ) {
        self.providerID = providerID
        self.hasKeySource = hasKeySource
        self.issuer = issuer
        self.clientID = clientID
        self.federated = federated
        self.algorithm = algorithm
        self.boundToApp = boundToApp
    }
}

/// What a provider's fetched keys say of one `kid`.
public enum SourceKeyLookup: Sendable {
    case found(SourceKey)
    /// The source's current set has no such key (after the one refetch an unknown `kid` may cause).
    case notFound
    /// No set can be used: never fetched, or failing for longer than the grace period. The reason
    /// is for the token's author.
    case unavailable(String)
}

/// Where a verifier outside Vouch's server gets its facts: its own database, a configuration
/// file, a test's dictionary. `TokenVerifier.verdict(_:appID:facts:now:)` asks it once per token,
/// only when the plan names something to look up, and never for a token already settled by the
/// rules that need no look-up (#1–#8).
///
/// Errors thrown here are failures of the world (the database is down), never a verdict on the
/// token; the verifier passes them on as they are.
public protocol VerificationFactsProvider: Sendable {
    func facts(for plan: TokenPlan, now: Int64) async throws -> VerificationFacts
}
