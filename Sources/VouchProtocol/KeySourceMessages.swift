import Foundation

/// A member of a `PATCH` body that may be left out (no change), `null` (removed) or given.
public enum FieldChange<Value: Codable & Sendable & Equatable>: Sendable, Equatable {
    case unchanged
    case cleared
    case set(Value)

    /// `value` applied to `current`.
    public func applied(to current: Value?) -> Value? {
        switch self {
        case .unchanged: current
        case .cleared: nil
        case .set(let value): value
        }
    }
}

extension KeyedDecodingContainer {
    fileprivate func change<Value: Codable & Sendable & Equatable>(_ key: Key) throws -> FieldChange<Value> {
        guard contains(key) else { return .unchanged }
        if try decodeNil(forKey: key) { return .cleared }
        return .set(try decode(Value.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    fileprivate mutating func encode<Value: Codable & Sendable & Equatable>(_ change: FieldChange<Value>, forKey key: Key) throws {
        switch change {
        case .unchanged: break
        case .cleared: try encodeNil(forKey: key)
        case .set(let value): try encode(value, forKey: key)
        }
    }
}

/// A provider's key source as the admin API shows it (PROTOCOL §8.18).
public struct KeySourceResponse: Codable, Sendable, Equatable {
    public var jwksURI: String?
    public var issuer: String?
    public var clientID: String?
    public var federated: Bool
    public var algorithm: String

    public init(jwksURI: String?, issuer: String?, clientID: String?, federated: Bool, algorithm: String) {
        self.jwksURI = jwksURI
        self.issuer = issuer
        self.clientID = clientID
        self.federated = federated
        self.algorithm = algorithm
    }

    enum CodingKeys: String, CodingKey {
        case jwksURI = "jwks_uri"
        case issuer
        case clientID = "client_id"
        case federated, algorithm
    }
}

/// `PATCH /admin/providers/<uuid>`: each member left out stays as it is; `null` removes a key
/// source's member (the source goes once it has neither `jwks_uri` nor `issuer`).
public struct UpdateProviderRequest: Codable, Sendable, Equatable {
    public var name: String?
    public var jwksURI: FieldChange<String>
    public var issuer: FieldChange<String>
    public var clientID: FieldChange<String>
    public var federated: Bool?
    public var algorithm: String?

    public init(
        name: String? = nil, jwksURI: FieldChange<String> = .unchanged, issuer: FieldChange<String> = .unchanged,
        clientID: FieldChange<String> = .unchanged, federated: Bool? = nil, algorithm: String? = nil
    ) {
        self.name = name
        self.jwksURI = jwksURI
        self.issuer = issuer
        self.clientID = clientID
        self.federated = federated
        self.algorithm = algorithm
    }

    enum CodingKeys: String, CodingKey {
        case name
        case jwksURI = "jwks_uri"
        case issuer
        case clientID = "client_id"
        case federated, algorithm
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        jwksURI = try container.change(.jwksURI)
        issuer = try container.change(.issuer)
        clientID = try container.change(.clientID)
        federated = try container.decodeIfPresent(Bool.self, forKey: .federated)
        algorithm = try container.decodeIfPresent(String.self, forKey: .algorithm)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(jwksURI, forKey: .jwksURI)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(federated, forKey: .federated)
        try container.encodeIfPresent(algorithm, forKey: .algorithm)
    }
}

/// `GET /admin/providers/<uuid>/key-source`: what was fetched, how fetching goes, and every key
/// seen with the sign-ins it verified in the last 24 hours.
public struct KeySourceStatusResponse: Codable, Sendable, Equatable {
    /// `pending` (never fetched), `ok`, `failing` (the last good keys still verify until
    /// `trusted_until`), `expired` (failing for longer: its tokens are refused).
    public enum Status: String, Codable, Sendable, Equatable {
        case pending, ok, failing, expired
    }

    public struct Key: Codable, Sendable, Equatable {
        public var kid: String
        public var keyType: String
        public var fingerprint: String
        public var firstSeenAt: String
        public var lastSeenAt: String
        /// Whether the last good set still publishes it.
        public var present: Bool
        public var tokensVerified24h: Int64

        public init(
            kid: String, keyType: String, fingerprint: String, firstSeenAt: String, lastSeenAt: String, present: Bool,
            tokensVerified24h: Int64
        ) {
            self.kid = kid
            self.keyType = keyType
            self.fingerprint = fingerprint
            self.firstSeenAt = firstSeenAt
            self.lastSeenAt = lastSeenAt
            self.present = present
            self.tokensVerified24h = tokensVerified24h
        }

        enum CodingKeys: String, CodingKey {
            case kid
            case keyType = "key_type"
            case fingerprint
            case firstSeenAt = "first_seen_at"
            case lastSeenAt = "last_seen_at"
            case present
            case tokensVerified24h = "tokens_verified_24h"
        }
    }

    public var providerID: String
    public var keySource: KeySourceResponse
    public var status: Status
    /// The JWKS URL fetched (after discovery).
    public var jwksURL: String?
    public var fetchedAt: String?
    public var freshUntil: String?
    public var attemptedAt: String?
    public var failingSince: String?
    public var lastError: String?
    /// Until when the last good keys verify through an outage.
    public var trustedUntil: String?
    public var keys: [Key]

    public init(
        providerID: String, keySource: KeySourceResponse, status: Status, jwksURL: String?, fetchedAt: String?,
        freshUntil: String?, attemptedAt: String?, failingSince: String?, lastError: String?, trustedUntil: String?, keys: [Key]
    ) {
        self.providerID = providerID
        self.keySource = keySource
        self.status = status
        self.jwksURL = jwksURL
        self.fetchedAt = fetchedAt
        self.freshUntil = freshUntil
        self.attemptedAt = attemptedAt
        self.failingSince = failingSince
        self.lastError = lastError
        self.trustedUntil = trustedUntil
        self.keys = keys
    }

    enum CodingKeys: String, CodingKey {
        case providerID = "provider_id"
        case keySource = "key_source"
        case status
        case jwksURL = "jwks_url"
        case fetchedAt = "fetched_at"
        case freshUntil = "fresh_until"
        case attemptedAt = "attempted_at"
        case failingSince = "failing_since"
        case lastError = "last_error"
        case trustedUntil = "trusted_until"
        case keys
    }
}
