import Foundation
import VouchProtocol

/// An application: the unit that sessions, users and registration secrets belong to.
public struct AppRecord: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var sessionTTLSeconds: Int64
    /// Unix seconds.
    public var createdAt: Int64
    /// How long a client has to answer a challenge pushed on the live channel before its socket
    /// is closed (PROTOCOL §8.15).
    public var challengeMarginSeconds: Int64
    /// How long an access token minted for one of its sessions lives (PROTOCOL §8.16).
    public var accessTokenTTLSeconds: Int64
    /// The audiences (`aud`) an access token may be minted for besides the default one, the
    /// app's id: the app's other services, each pinning its own.
    public var audiences: [String]

    public init(
        id: UUID, name: String, sessionTTLSeconds: Int64, createdAt: Int64,
        challengeMarginSeconds: Int64 = AppRecord.defaultChallengeMarginSeconds,
        accessTokenTTLSeconds: Int64 = AppRecord.defaultAccessTokenTTLSeconds, audiences: [String] = []
    ) {
        self.id = id
        self.name = name
        self.sessionTTLSeconds = sessionTTLSeconds
        self.createdAt = createdAt
        self.challengeMarginSeconds = challengeMarginSeconds
        self.accessTokenTTLSeconds = accessTokenTTLSeconds
        self.audiences = audiences
    }

    /// Five minutes, the longest allowed: a token outlives its session's ending only where no
    /// one follows the endings, and then by at most this.
    public static let defaultAccessTokenTTLSeconds: Int64 = 300
    public static let accessTokenTTLRange: ClosedRange<Int64> = 1...300
    /// At most this many registered audiences per app.
    public static let maximumAudiences = 20
    /// An audience is 1…200 characters of printable ASCII without spaces (a URL or a name).
    public static func isValidAudience(_ audience: String) -> Bool {
        (1...200).contains(audience.utf8.count) && audience.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    public static let defaultChallengeMarginSeconds: Int64 = 30
    /// Long enough for a phone to fetch an identity token from a slow backend, short enough that
    /// a socket whose session is over does not linger.
    public static let challengeMarginRange: ClosedRange<Int64> = 5...600
}

/// The fields of an app an update may change; `nil` leaves a field as stored.
public struct AppChanges: Sendable, Equatable {
    public var name: String?
    public var sessionTTLSeconds: Int64?
    public var challengeMarginSeconds: Int64?
    public var accessTokenTTLSeconds: Int64?
    /// Replaces the whole list.
    public var audiences: [String]?

    public init(
        name: String? = nil, sessionTTLSeconds: Int64? = nil, challengeMarginSeconds: Int64? = nil,
        accessTokenTTLSeconds: Int64? = nil, audiences: [String]? = nil
    ) {
        self.name = name
        self.sessionTTLSeconds = sessionTTLSeconds
        self.challengeMarginSeconds = challengeMarginSeconds
        self.accessTokenTTLSeconds = accessTokenTTLSeconds
        self.audiences = audiences
    }
}

/// An identity provider: an app's backend, known by the RSA keys it signs identity tokens with.
public struct ProviderRecord: Sendable, Equatable {
    public var id: UUID
    public var name: String
    /// The apps this provider may vouch for, sorted by UUID string.
    public var appIDs: [UUID]
    public var createdAt: Int64
    /// Where keys are fetched from besides the uploaded ones; `nil` for uploaded keys alone.
    public var keySource: ProviderKeySource?

    public init(id: UUID, name: String, appIDs: [UUID], createdAt: Int64, keySource: ProviderKeySource? = nil) {
        self.id = id
        self.name = name
        self.appIDs = appIDs
        self.createdAt = createdAt
        self.keySource = keySource
    }
}

/// A provider's public signing key. Deleted keys stay as tombstones (status `.deleted`).
public struct KeyRecord: Sendable, Equatable {
    public var id: UUID
    public var providerID: UUID
    public var status: KeyStatus
    /// SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----").
    public var publicKeyPEM: String
    /// `sha256:` + lower-case hex of the SHA-256 of the key's DER encoding.
    public var fingerprint: String
    public var createdAt: Int64
    /// When the key last verified a token that opened a session (Unix seconds), `nil` if never.
    /// Written in the sign-in's own transaction, at most once per
    /// ``lastVerifiedResolutionSeconds``, so that sign-ins with one key do not all queue on
    /// its row.
    public var lastVerifiedAt: Int64?

    /// How stale `lastVerifiedAt` may be: a sign-in within this many seconds of the stored time
    /// leaves it as it is.
    public static let lastVerifiedResolutionSeconds: Int64 = 60

    public init(
        id: UUID, providerID: UUID, status: KeyStatus, publicKeyPEM: String, fingerprint: String, createdAt: Int64,
        lastVerifiedAt: Int64? = nil
    ) {
        self.id = id
        self.providerID = providerID
        self.status = status
        self.publicKeyPEM = publicKeyPEM
        self.fingerprint = fingerprint
        self.createdAt = createdAt
        self.lastVerifiedAt = lastVerifiedAt
    }
}

/// A Sinch-profile registration secret: the shared secret an app's backend derives daily keys from.
///
/// Stored as issued, because verification needs the secret itself (HMAC), not a hash of it.
public struct RegistrationSecretRecord: Sendable, Equatable {
    /// Lower-case UUID string; appears in the token's `iss`.
    public var applicationKey: UUID
    public var appID: UUID
    /// The 32 secret bytes.
    public var secret: [UInt8]
    public var createdAt: Int64
    /// From this second on the secret verifies nothing; `nil` while it is in use. A revocation
    /// with a grace period sets it in the future, so both secrets work while backends move over.
    public var revokedAt: Int64?

    public init(applicationKey: UUID, appID: UUID, secret: [UInt8], createdAt: Int64, revokedAt: Int64? = nil) {
        self.applicationKey = applicationKey
        self.appID = appID
        self.secret = secret
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// Whether the secret still verifies tokens at `now`.
    public func isValid(at now: Int64) -> Bool { revokedAt.map { now < $0 } ?? true }
}

/// A user of one app, as last described by an identity token.
public struct UserRecord: Sendable, Equatable {
    public var appID: UUID
    public var userID: String
    public var profile: IdentityProfile
    public var suspended: Bool
    /// The user's cutoff (`Store.cutOff(.user(…))`): sessions made under an older generation are over.
    public var cutoff: ScopeCutoff

    public init(appID: UUID, userID: String, profile: IdentityProfile, suspended: Bool, cutoff: ScopeCutoff = .none) {
        self.appID = appID
        self.userID = userID
        self.profile = profile
        self.suspended = suspended
        self.cutoff = cutoff
    }
}

/// Why a session stopped being usable before its expiry.
public enum SessionEndReason: String, Sendable, Equatable {
    /// `DELETE /sessions/<t>` or the admin API's revocation.
    case revoked
    /// The user was suspended.
    case userSuspended = "user_suspended"
    /// The user signed this device out from another one (`DELETE /sessions/id/<id>`,
    /// `POST /sessions/sign-out-others`): the device is to forget the user, not to sign in again.
    case signedOut = "signed_out"
}

/// A session as stored: only the SHA-256 of its token is kept.
public struct SessionRecord: Sendable, Equatable {
    public var tokenHash: [UInt8]
    /// The session's public name (`session_id`): random, never derived from the token, so that it
    /// can be shown and sent around where the token must never go.
    public var sessionID: UUID
    public var appID: UUID
    public var userID: String
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Unix seconds at which it was ended, or `nil` while it lives.
    public var endedAt: Int64?
    public var endReason: SessionEndReason?
    /// The provider and key whose token opened it (Layer profile); `nil` for the Sinch profile.
    public var providerID: UUID?
    public var keyID: UUID?
    /// The generations of its objects' cutoffs when it was made.
    public var generations: SessionGenerations
    public var device: DeviceDescription?
    /// When an authenticated request last used it, to within `lastSeenResolutionSeconds`.
    public var lastSeenAt: Int64

    /// How stale `lastSeenAt` may be: a request within this many seconds of it writes nothing.
    public static let lastSeenResolutionSeconds: Int64 = 60

    public init(
        tokenHash: [UInt8], appID: UUID, userID: String, createdAt: Int64, expiresAt: Int64,
        endedAt: Int64? = nil, endReason: SessionEndReason? = nil, sessionID: UUID = UUID(),
        providerID: UUID? = nil, keyID: UUID? = nil, generations: SessionGenerations = SessionGenerations(),
        device: DeviceDescription? = nil, lastSeenAt: Int64? = nil
    ) {
        self.tokenHash = tokenHash
        self.sessionID = sessionID
        self.appID = appID
        self.userID = userID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.providerID = providerID
        self.keyID = keyID
        self.generations = generations
        self.device = device
        self.lastSeenAt = lastSeenAt ?? createdAt
    }
}

/// The single-use proof that a sign-in's nonce has not been used before, written in the same
/// transaction as the session it admits.
public enum NonceClaim: Sendable, Equatable {
    /// A server-issued nonce (Layer profile), identified by its SHA-256 (`ServerNonceUse`).
    case serverNonce(ServerNonceUse)
    /// A client-made nonce (Sinch profile), unique per app until `expiresAt` (the token's `exp`).
    case registrationNonce(appID: UUID, nonce: String, expiresAt: Int64)

    public static func serverNonce(hash: [UInt8], expiresAt: Int64) -> NonceClaim {
        .serverNonce(ServerNonceUse(hash: hash, expiresAt: expiresAt))
    }
}

/// What to write when a sign-in succeeds.
public struct NewSession: Sendable, Equatable {
    public var tokenHash: [UInt8]
    public var appID: UUID
    public var userID: String
    /// Identity fields from the token; `nil` fields leave the stored value unchanged.
    public var profile: IdentityProfile
    public var createdAt: Int64
    public var expiresAt: Int64
    public var nonce: NonceClaim
    /// The provider key that verified the token (Layer profile), whose `lastVerifiedAt` the
    /// same transaction moves to `createdAt`; `nil` for the Sinch profile.
    public var keyID: UUID?
    /// The provider of `keyID`; `nil` for the Sinch profile.
    public var providerID: UUID?
    public var sessionID: UUID
    public var device: DeviceDescription?

    public init(
        tokenHash: [UInt8], appID: UUID, userID: String, profile: IdentityProfile,
        createdAt: Int64, expiresAt: Int64, nonce: NonceClaim, keyID: UUID? = nil, providerID: UUID? = nil,
        sessionID: UUID = PublicSessionID.make(), device: DeviceDescription? = nil
    ) {
        self.tokenHash = tokenHash
        self.appID = appID
        self.userID = userID
        self.profile = profile
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.nonce = nonce
        self.keyID = keyID
        self.providerID = providerID
        self.sessionID = sessionID
        self.device = device
    }
}

extension IdentityProfile {
    /// Whether a sign-in whose claims carry `update` would change this stored profile: the fields
    /// it carries replace the stored ones, the fields it omits keep theirs. A returning user
    /// whose token says nothing new needs no write.
    public func changes(with update: IdentityProfile) -> Bool {
        (update.displayName != nil && update.displayName != displayName)
            || (update.firstName != nil && update.firstName != firstName)
            || (update.lastName != nil && update.lastName != lastName)
            || (update.avatarURL != nil && update.avatarURL != avatarURL)
    }
}

/// What `Store.purgeExpired` removed, by kind.
public struct PurgedRows: Sendable, Equatable {
    public var serverNonces: Int
    public var registrationNonces: Int
    public var sessions: Int
    public var liveTickets: Int

    public init(serverNonces: Int, registrationNonces: Int, sessions: Int, liveTickets: Int = 0) {
        self.serverNonces = serverNonces
        self.registrationNonces = registrationNonces
        self.sessions = sessions
        self.liveTickets = liveTickets
    }

    public var total: Int { serverNonces + registrationNonces + sessions + liveTickets }
}
