import Foundation
import VouchProtocol

/// Where a provider's keys come from besides (or instead of) uploaded ones: a JWKS URL, or an
/// OpenID issuer whose discovery document names one (PROTOCOL §8.18).
///
/// `issuer` is also what pins the tokens' `iss`: a provider is chosen only by its id or by an exact
/// match of `iss` with this string, never by a URL a token carries, so that a token cannot send
/// Vouch to fetch keys from where it likes.
public struct ProviderKeySource: Sendable, Equatable {
    /// Fetched as it is; when `nil`, `issuer`'s discovery document names the JWKS.
    public var jwksURI: String?
    /// Compared byte for byte with a token's `iss`; unique among providers.
    public var issuer: String?
    /// An ID token's `aud` must name it (federated sign-ins only).
    public var clientID: String?
    /// Whether the provider's own ID tokens (no Vouch nonce) may sign users in.
    public var federated: Bool
    /// The one algorithm the provider's fetched keys verify with: a token's `alg` must say it.
    public var algorithm: SourceKeyAlgorithm

    public init(
        jwksURI: String? = nil, issuer: String? = nil, clientID: String? = nil, federated: Bool = false,
        algorithm: SourceKeyAlgorithm = .rs256
    ) {
        self.jwksURI = jwksURI
        self.issuer = issuer
        self.clientID = clientID
        self.federated = federated
        self.algorithm = algorithm
    }

    /// What a fetched set was fetched for: a set fetched under another configuration (another URL,
    /// issuer or pinned algorithm) is not used.
    public var identity: String {
        "jwks=\(jwksURI ?? "");issuer=\(issuer ?? "");alg=\(algorithm.rawValue)"
    }
}

/// A change to a provider: each `nil` leaves its part as it is.
public struct ProviderChange: Sendable, Equatable {
    public var name: String?
    /// `.some(nil)` removes the key source and what was fetched from it.
    public var keySource: ProviderKeySource??

    public init(name: String? = nil, keySource: ProviderKeySource?? = nil) {
        self.name = name
        self.keySource = keySource
    }
}

/// What the store holds of a provider's key source: the last good JWKS, shared by every instance
/// so that one fetch serves them all, and the state of fetching it.
public struct KeySetState: Sendable, Equatable {
    public var providerID: UUID
    /// `ProviderKeySource.identity` of the configuration the document was fetched for.
    public var source: String
    /// The JWKS URL the document came from (after discovery).
    public var jwksURL: String?
    /// The last JWKS fetched and accepted, as fetched.
    public var document: String?
    /// When `document` was fetched (Unix seconds).
    public var fetchedAt: Int64?
    /// When `document` goes stale: `fetchedAt` plus its `Cache-Control` clamped to [60 s, 1 h].
    public var freshUntil: Int64?
    /// When the last fetch began, by any instance.
    public var attemptedAt: Int64
    /// When fetching first failed since the last success; `nil` while it works.
    public var failingSince: Int64?
    /// Why the last fetch failed, in words for the operator.
    public var lastError: String?
    /// Every key seen in the source, newest first.
    public var keys: [SourceKeySighting]

    public init(
        providerID: UUID, source: String, jwksURL: String?, document: String?, fetchedAt: Int64?, freshUntil: Int64?,
        attemptedAt: Int64, failingSince: Int64?, lastError: String?, keys: [SourceKeySighting] = []
    ) {
        self.providerID = providerID
        self.source = source
        self.jwksURL = jwksURL
        self.document = document
        self.fetchedAt = fetchedAt
        self.freshUntil = freshUntil
        self.attemptedAt = attemptedAt
        self.failingSince = failingSince
        self.lastError = lastError
        self.keys = keys
    }
}

/// A key a provider's source published, as the operator sees it.
public struct SourceKeySighting: Sendable, Equatable {
    public var keyID: String
    /// `RSA` or `EC`.
    public var keyType: String
    /// `sha256:` + hex of the key's SubjectPublicKeyInfo DER, as for uploaded keys.
    public var fingerprint: String
    public var firstSeenAt: Int64
    public var lastSeenAt: Int64
    /// Whether the last good document holds it.
    public var present: Bool
    /// Sign-ins it verified since the time the query named (the last 24 hours, to the hour).
    public var tokensVerified: Int64

    public init(
        keyID: String, keyType: String, fingerprint: String, firstSeenAt: Int64, lastSeenAt: Int64, present: Bool,
        tokensVerified: Int64 = 0
    ) {
        self.keyID = keyID
        self.keyType = keyType
        self.fingerprint = fingerprint
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.present = present
        self.tokensVerified = tokensVerified
    }
}

/// What a fetch of a provider's keys came to, for `Store.finishKeySetFetch`.
public struct KeySetFetch: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The document was accepted; `keys` are the keys it holds that Vouch takes.
        case fetched(document: String, jwksURL: String, freshUntil: Int64, keys: [FetchedKey])
        /// Nothing usable came: the last good document stays, `reason` says why in words.
        case failed(reason: String)
    }

    /// A key of an accepted document.
    public struct FetchedKey: Sendable, Equatable {
        public var keyID: String
        public var keyType: String
        public var fingerprint: String

        public init(keyID: String, keyType: String, fingerprint: String) {
            self.keyID = keyID
            self.keyType = keyType
            self.fingerprint = fingerprint
        }
    }

    public var providerID: UUID
    public var source: String
    public var outcome: Outcome
    public var at: Int64

    public init(providerID: UUID, source: String, outcome: Outcome, at: Int64) {
        self.providerID = providerID
        self.source = source
        self.outcome = outcome
        self.at = at
    }
}

/// How a finished fetch moved the source's health, which is told as an event when it moves.
public enum KeySetHealthChange: Sendable, Equatable {
    case unchanged
    /// The first failure since a success (or since the source was set): `key_source.failing`.
    case startedFailing
    /// The first success after failures: `key_source.recovered`.
    case recovered
}

/// Sign-ins verified by one fetched key within one hour, counted by an instance and added to the
/// store's count now and then.
public struct SourceKeyUse: Sendable, Equatable, Hashable {
    public var providerID: UUID
    public var keyID: String
    /// The hour's first second (Unix seconds, a multiple of 3 600).
    public var hour: Int64
    public var count: Int64

    public init(providerID: UUID, keyID: String, hour: Int64, count: Int64) {
        self.providerID = providerID
        self.keyID = keyID
        self.hour = hour
        self.count = count
    }
}
