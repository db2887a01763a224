import Foundation
import VouchProtocol
import VouchSupport

/// What a Vouch access token says (PROTOCOL §8.16): who the user is, for which service, from
/// which session, and the cutoff generations that session recorded, so that a service following
/// the log of endings can tell offline whether a cutoff reached it.
public struct AccessTokenClaims: Sendable, Equatable {
    /// The server's public URL.
    public var issuer: String
    /// The user id.
    public var subject: String
    public var audience: String
    public var appID: UUID
    /// The session's public id.
    public var sessionID: UUID
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var tokenID: String
    public var generations: AccessTokenGenerations

    public init(
        issuer: String, subject: String, audience: String, appID: UUID, sessionID: UUID, issuedAt: Int64,
        expiresAt: Int64, tokenID: String, generations: AccessTokenGenerations
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.appID = appID
        self.sessionID = sessionID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.generations = generations
    }

    /// The longest an access token may live, whatever an app asks: verifiers refuse a longer one.
    public static let maximumLifetimeSeconds: Int64 = 300

    /// The claims as a JSON object, in `CanonicalJSON`'s spelling.
    public var jsonObject: [String: JSONValue] {
        var generationMembers: [String: JSONValue] = [
            "app": .number(JSONNumber(generations.app)), "user": .number(JSONNumber(generations.user)),
        ]
        var members: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(subject), "aud": .string(audience),
            "app": .string(UUIDText.lowercase(appID)), "sid": .string(UUIDText.lowercase(sessionID)),
            "iat": .number(JSONNumber(issuedAt)), "exp": .number(JSONNumber(expiresAt)), "jti": .string(tokenID),
        ]
        if let provider = generations.provider {
            generationMembers["provider"] = .number(JSONNumber(provider.generation))
            members["provider_id"] = .string(UUIDText.lowercase(provider.id))
        }
        if let key = generations.key {
            generationMembers["key"] = .number(JSONNumber(key.generation))
            members["key_id"] = .string(UUIDText.lowercase(key.id))
        }
        members["gen"] = .object(generationMembers)
        return members
    }

    /// Reads claims a verified token carries; `nil` when one is missing or of the wrong type.
    public init?(members claims: JSONMembers) {
        guard let issuer = claims["iss"]?.stringValue, let subject = claims["sub"]?.stringValue,
            let audience = claims["aud"]?.stringValue,
            let appID = claims["app"]?.stringValue.flatMap(UUID.init(uuidString:)),
            let sessionID = claims["sid"]?.stringValue.flatMap(UUID.init(uuidString:)),
            let issuedAt = claims["iat"]?.integerValue, let expiresAt = claims["exp"]?.integerValue,
            let tokenID = claims["jti"]?.stringValue, let gen = claims["gen"]?.objectValue,
            let app = gen["app"]?.integerValue, let user = gen["user"]?.integerValue
        else { return nil }
        func scoped(_ name: String, _ idClaim: String) -> AccessTokenGenerations.Scoped?? {
            switch (gen[name]?.integerValue, claims[idClaim]?.stringValue.flatMap(UUID.init(uuidString:))) {
            case (nil, nil): .some(nil)
            case (let generation?, let id?): .some(AccessTokenGenerations.Scoped(id: id, generation: generation))
            default: nil
            }
        }
        guard let provider = scoped("provider", "provider_id"), let key = scoped("key", "key_id") else { return nil }
        self.init(
            issuer: issuer, subject: subject, audience: audience, appID: appID, sessionID: sessionID, issuedAt: issuedAt,
            expiresAt: expiresAt, tokenID: tokenID,
            generations: AccessTokenGenerations(app: app, user: user, provider: provider, key: key))
    }
}

/// The cutoff generations a session recorded when it was made, as its access tokens carry them.
public struct AccessTokenGenerations: Sendable, Equatable {
    /// An object known by id with its generation (a provider, a key).
    public struct Scoped: Sendable, Equatable {
        public var id: UUID
        public var generation: Int64

        public init(id: UUID, generation: Int64) {
            self.id = id
            self.generation = generation
        }
    }

    public var app: Int64
    public var user: Int64
    /// The provider and key whose token opened the session; `nil` for a registration token's.
    public var provider: Scoped?
    public var key: Scoped?

    public init(app: Int64, user: Int64, provider: Scoped? = nil, key: Scoped? = nil) {
        self.app = app
        self.user = user
        self.provider = provider
        self.key = key
    }
}
