import Foundation

/// The facts of an access token whose signature, issuer, audience, lifetime and session all held
/// when it was verified: what a service authorises on, without calling Vouch.
public struct VerifiedAccessToken: Sendable, Hashable {
    /// `sub`: the user, as the app's identity provider named them; the key to the service's own data.
    public let userID: String
    /// `app`: the Vouch app the session belongs to.
    public let appID: UUID
    /// `sid`: the session's public id, the one the stream of endings names when it ends.
    public let sessionID: UUID
    /// The pinned audience the token's `aud` named: the service it was minted for.
    public let audience: String
    /// `iat`: when Vouch minted the token.
    public let issuedAt: Date
    /// `exp`: past it (and the clock leeway) the token is refused, cached or not.
    public let expiresAt: Date
    /// `jti`: unique per token, for a service that keeps its own replay log or audit trail.
    public let tokenID: String
    /// `gen`: the cutoff generations the session recorded; a cutoff above one of them ends it.
    public let generations: AccessTokenGenerations
    /// `provider_id`: the identity provider whose key opened the session, for provider cutoffs.
    public let providerID: UUID?
    /// `key_id`: the provider key that opened the session, for key cutoffs.
    public let keyID: UUID?

    /// Public so that a service can build one in its own tests (of a handler behind the
    /// middleware, say) without minting a token.
    public init(
        userID: String, appID: UUID, sessionID: UUID, audience: String, issuedAt: Date, expiresAt: Date, tokenID: String,
        generations: AccessTokenGenerations, providerID: UUID? = nil, keyID: UUID? = nil
    ) {
        self.userID = userID
        self.appID = appID
        self.sessionID = sessionID
        self.audience = audience
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.generations = generations
        self.providerID = providerID
        self.keyID = keyID
    }
}

/// The cutoff generations a session recorded when it was opened (the token's `gen` claim): an
/// operator's cutoff of the app, the user, the provider or the key raises that scope's generation,
/// and every session recorded below it is over.
public struct AccessTokenGenerations: Sendable, Hashable {
    /// `gen.app`: compared with the app's cutoffs.
    public let app: Int64
    /// `gen.user`: compared with the cutoffs of this user in this app.
    public let user: Int64
    /// `gen.provider`: present for sessions opened with a provider key (the Layer profile).
    public let provider: Int64?
    /// `gen.key`: present for sessions opened with a provider key (the Layer profile).
    public let key: Int64?

    /// Public for the same reason as ``VerifiedAccessToken/init(userID:appID:sessionID:audience:issuedAt:expiresAt:tokenID:generations:providerID:keyID:)``.
    public init(app: Int64, user: Int64, provider: Int64? = nil, key: Int64? = nil) {
        self.app = app
        self.user = user
        self.provider = provider
        self.key = key
    }
}
