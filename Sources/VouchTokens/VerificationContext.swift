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

/// How a provider stands towards the app a sign-in names.
public enum ProviderBinding: Sendable, Equatable {
    case unknownProvider
    case notBound
    case bound
}

/// What a server nonce is, as seen by a sign-in to one app.
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

/// Everything the verifier needs to know about the world, passed in so that the verifier does no
/// I/O of its own: the server backs it with the store, tests with plain values.
///
/// Lookups happen in the order of PROTOCOL §5.4, and the claim-based ones (provider, nonce, user)
/// only after the signature has been verified, all together through `claimStanding`. Errors thrown here are infrastructure failures
/// (the database is down), never a verdict on the token.
public protocol VerificationContext: Sendable {
    /// Told everything the verification will look up, before the first look-up; the default does
    /// nothing. A context that fetches ahead must still answer each later question as asked.
    func prepare(_ plan: LookupPlan) async throws
    func layerKey(id: UUID) async throws -> LayerVerificationKey?
    func providerBinding(providerID: UUID, appID: UUID) async throws -> ProviderBinding
    /// Whether a server-issued nonce is genuine, unexpired and not yet used.
    func isNonceUsable(_ nonce: String, now: Int64) async throws -> Bool
    /// Whether a server-issued nonce admits a sign-in to `appID`, and if not, why. The default
    /// knows no app bindings: usable or unknown, as `isNonceUsable` says.
    func nonceStanding(_ nonce: String, appID: UUID, now: Int64) async throws -> NonceStanding
    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecret?
    /// Whether a Sinch token's client-made nonce was already seen for this app (and is still
    /// within its token's lifetime).
    func isRegistrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool
    func isUserSuspended(appID: UUID, userID: String) async throws -> Bool
    /// Every claim-based lookup of a signed token at once (see `ClaimQuestions`). The default asks
    /// the methods above one by one.
    func claimStanding(_ questions: ClaimQuestions, now: Int64) async throws -> ClaimStanding
}

extension VerificationContext {
    public func prepare(_ plan: LookupPlan) async throws {}

    public func nonceStanding(_ nonce: String, appID: UUID, now: Int64) async throws -> NonceStanding {
        try await isNonceUsable(nonce, now: now) ? .usable : .unknown
    }
}
