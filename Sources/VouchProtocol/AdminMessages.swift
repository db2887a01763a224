/// Bodies of the admin API (PROTOCOL §4). Request fields are optional so that a missing one is
/// answered with `missing_property` naming it.

public struct CreateAppRequest: Codable, Sendable, Equatable {
    public var name: String?
    public var sessionTTLSeconds: Int64?
    /// How long a client has to answer a live-channel challenge (PROTOCOL §8.15).
    public var challengeMarginSeconds: Int64?
    /// How long its access tokens live (PROTOCOL §8.16): 1…300 seconds.
    public var accessTokenTTLSeconds: Int64?
    /// The audiences its access tokens may be minted for besides the app's id; replaces the list.
    public var audiences: [String]?

    public init(
        name: String?, sessionTTLSeconds: Int64? = nil, challengeMarginSeconds: Int64? = nil,
        accessTokenTTLSeconds: Int64? = nil, audiences: [String]? = nil
    ) {
        self.name = name
        self.sessionTTLSeconds = sessionTTLSeconds
        self.challengeMarginSeconds = challengeMarginSeconds
        self.accessTokenTTLSeconds = accessTokenTTLSeconds
        self.audiences = audiences
    }

    enum CodingKeys: String, CodingKey {
        case name
        case sessionTTLSeconds = "session_ttl_seconds"
        case challengeMarginSeconds = "challenge_margin_seconds"
        case accessTokenTTLSeconds = "access_token_ttl_seconds"
        case audiences
    }
}

/// `PATCH /admin/apps/<uuid>`: only the fields present change.
public typealias UpdateAppRequest = CreateAppRequest

public struct AppResponse: Codable, Sendable, Equatable {
    /// `layer:///apps/<uuid>`.
    public var id: String
    public var name: String
    public var sessionTTLSeconds: Int64
    public var createdAt: String
    public var challengeMarginSeconds: Int64
    public var accessTokenTTLSeconds: Int64
    public var audiences: [String]

    public init(
        id: String, name: String, sessionTTLSeconds: Int64, createdAt: String, challengeMarginSeconds: Int64 = 30,
        accessTokenTTLSeconds: Int64 = 300, audiences: [String] = []
    ) {
        self.id = id
        self.name = name
        self.sessionTTLSeconds = sessionTTLSeconds
        self.createdAt = createdAt
        self.challengeMarginSeconds = challengeMarginSeconds
        self.accessTokenTTLSeconds = accessTokenTTLSeconds
        self.audiences = audiences
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case sessionTTLSeconds = "session_ttl_seconds"
        case createdAt = "created_at"
        case challengeMarginSeconds = "challenge_margin_seconds"
        case accessTokenTTLSeconds = "access_token_ttl_seconds"
        case audiences
    }
}

/// `POST /admin/providers`: a name, and optionally a key source (PROTOCOL §8.18).
public struct CreateProviderRequest: Codable, Sendable, Equatable {
    public var name: String?
    public var jwksURI: String?
    public var issuer: String?
    public var clientID: String?
    public var federated: Bool?
    public var algorithm: String?

    public init(
        name: String?, jwksURI: String? = nil, issuer: String? = nil, clientID: String? = nil, federated: Bool? = nil,
        algorithm: String? = nil
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
}

public struct ProviderResponse: Codable, Sendable, Equatable {
    /// `layer:///providers/<uuid>`.
    public var id: String
    public var name: String
    /// `layer:///apps/<uuid>` of every app the provider may vouch for.
    public var appIDs: [String]
    /// Where keys are fetched from besides the uploaded ones, when anywhere.
    public var keySource: KeySourceResponse?

    public init(id: String, name: String, appIDs: [String], keySource: KeySourceResponse? = nil) {
        self.id = id
        self.name = name
        self.appIDs = appIDs
        self.keySource = keySource
    }

    enum CodingKeys: String, CodingKey {
        case id, name
        case appIDs = "app_ids"
        case keySource = "key_source"
    }
}

/// `POST /admin/providers/<uuid>/keys`: either a PEM public key, or `generate: true`.
public struct CreateKeyRequest: Codable, Sendable, Equatable {
    public var publicKey: String?
    public var generate: Bool?

    public init(publicKey: String? = nil, generate: Bool? = nil) {
        self.publicKey = publicKey
        self.generate = generate
    }

    enum CodingKeys: String, CodingKey {
        case publicKey = "public_key"
        case generate
    }
}

public struct KeyResponse: Codable, Sendable, Equatable {
    /// `layer:///keys/<uuid>`.
    public var id: String
    /// `layer:///providers/<uuid>`.
    public var providerID: String
    public var status: KeyStatus
    public var algorithm: String
    /// `sha256:` + hex of the SHA-256 of the public key's DER (SubjectPublicKeyInfo).
    public var fingerprint: String
    /// The public key, PEM.
    public var publicKey: String?
    /// Only in the answer to `generate: true`, and only that once: the server does not keep it.
    public var privateKey: String?
    /// RFC 3339: when the key last verified a token that opened a session (to within a minute);
    /// absent when it never has.
    public var lastVerifiedAt: String?

    public init(
        id: String, providerID: String, status: KeyStatus, algorithm: String = "RS256",
        fingerprint: String, publicKey: String? = nil, privateKey: String? = nil, lastVerifiedAt: String? = nil
    ) {
        self.id = id
        self.providerID = providerID
        self.status = status
        self.algorithm = algorithm
        self.fingerprint = fingerprint
        self.publicKey = publicKey
        self.privateKey = privateKey
        self.lastVerifiedAt = lastVerifiedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, status, algorithm, fingerprint
        case providerID = "provider_id"
        case publicKey = "public_key"
        case privateKey = "private_key"
        case lastVerifiedAt = "last_verified_at"
    }
}

public struct UpdateKeyRequest: Codable, Sendable, Equatable {
    /// `active` or `disabled` (deletion is `DELETE`).
    public var status: String?
    public init(status: String?) { self.status = status }
}

/// One registration secret as listed and revoked: everything but the secret itself, which is
/// shown only when it is created.
public struct RegistrationSecretSummary: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Verifies tokens.
        case active
        /// Revoked with a grace period that has not ended: still verifies tokens until `revoked_at`.
        case retiring
        /// Verifies nothing: tokens naming its application key answer `eit_key_not_found`.
        case revoked
    }

    public var applicationKey: String
    public var appID: String
    public var status: Status
    public var createdAt: String
    /// When the secret stops (or stopped) verifying tokens; `null` while it is active.
    public var revokedAt: String?

    public init(applicationKey: String, appID: String, status: Status, createdAt: String, revokedAt: String?) {
        self.applicationKey = applicationKey
        self.appID = appID
        self.status = status
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    enum CodingKeys: String, CodingKey {
        case applicationKey = "application_key"
        case appID = "app_id"
        case status
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }

    /// Writes `revoked_at` on every object, `null` while active (PROTOCOL §4 lists it always).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(applicationKey, forKey: .applicationKey)
        try container.encode(appID, forKey: .appID)
        try container.encode(status, forKey: .status)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(revokedAt, forKey: .revokedAt)
    }
}

/// The optional body of `POST /admin/apps/<uuid>/registration-secrets/<key>/revoke`.
public struct RevokeRegistrationSecretRequest: Codable, Sendable, Equatable {
    /// Seconds the secret keeps verifying tokens, so backends can move to the new one; 0 (the
    /// default) revokes it at once.
    public var graceSeconds: Int64?

    public init(graceSeconds: Int64? = nil) { self.graceSeconds = graceSeconds }

    enum CodingKeys: String, CodingKey {
        case graceSeconds = "grace_seconds"
    }
}

/// `201` of `POST /admin/apps/<uuid>/registration-secrets`; the secret is shown this once.
public struct RegistrationSecretResponse: Codable, Sendable, Equatable {
    public var applicationKey: String
    /// Base64 (standard, padded) of 32 random bytes.
    public var applicationSecret: String

    public init(applicationKey: String, applicationSecret: String) {
        self.applicationKey = applicationKey
        self.applicationSecret = applicationSecret
    }

    enum CodingKeys: String, CodingKey {
        case applicationKey = "application_key"
        case applicationSecret = "application_secret"
    }
}

public struct UserStatusResponse: Codable, Sendable, Equatable {
    public var user: Identity
    public var suspended: Bool
    public var activeSessions: Int

    public init(user: Identity, suspended: Bool, activeSessions: Int) {
        self.user = user
        self.suspended = suspended
        self.activeSessions = activeSessions
    }

    enum CodingKeys: String, CodingKey {
        case user, suspended
        case activeSessions = "active_sessions"
    }
}

public struct UpdateUserRequest: Codable, Sendable, Equatable {
    public var suspended: Bool?
    public init(suspended: Bool?) { self.suspended = suspended }
}

/// `POST /admin/tools/validate-identity-token`.
public typealias ValidateTokenRequest = CreateSessionRequest

public struct ValidateTokenResponse: Codable, Sendable, Equatable {
    public struct Finding: Codable, Sendable, Equatable {
        public var reason: RejectionReason
        public var message: String
        public var param: String?
        public var claim: String?
        public var hint: String?

        public init(_ rejection: TokenRejection) {
            reason = rejection.reason
            message = rejection.message
            param = rejection.param
            claim = rejection.claim
            hint = rejection.hint
        }
    }

    public var valid: Bool
    /// Every problem found, ordered as PROTOCOL §5.4: the first is what `POST /sessions` answers.
    public var reasons: [Finding]
    /// The decoded header and claims (untrusted; empty objects when they could not be decoded).
    public var header: [String: JSONValue]
    public var claims: [String: JSONValue]
    /// `layer` or `sinch` (an extension: which profile judged the token), `nil` when unparsable.
    public var profile: String?

    public init(valid: Bool, reasons: [Finding], header: [String: JSONValue], claims: [String: JSONValue], profile: String?) {
        self.valid = valid
        self.reasons = reasons
        self.header = header
        self.claims = claims
        self.profile = profile
    }
}

/// `POST /admin/apps/<app>/service-credentials` (PROTOCOL §8.16).
public struct CreateServiceCredentialRequest: Codable, Sendable, Equatable {
    /// What the credential is for ("chat server"): 1…100 characters.
    public var name: String?

    public init(name: String?) { self.name = name }
}

/// A service credential as listed: never the credential itself, which only its creation answers.
public struct ServiceCredentialResponse: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: String
    public var revokedAt: String?
    /// Only in the answer to its creation: the one time the credential is shown.
    public var credential: String?

    public init(id: String, name: String, createdAt: String, revokedAt: String? = nil, credential: String? = nil) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.credential = credential
    }

    enum CodingKeys: String, CodingKey {
        case id, name, credential
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
    }
}
