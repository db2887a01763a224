import Foundation

/// A credential with which one of an app's own services (a chat server, a media relay) asks Vouch
/// about the app's sessions: introspection (`POST /introspect`) and the stream of security events
/// (`GET /events`, and its filter `GET /events/sessions`). Only the SHA-256 of the credential is kept; it is shown once, when an
/// operator makes it.
public struct ServiceCredentialRecord: Sendable, Equatable {
    public var id: UUID
    public var appID: UUID
    /// The operator's label ("chat server"), held to the admin API's rules for names (1…128 bytes).
    public var name: String
    /// SHA-256 of the credential's text.
    public var credentialHash: [UInt8]
    public var createdAt: Int64
    /// Unix seconds at which it was revoked, `nil` while it works.
    public var revokedAt: Int64?

    public init(id: UUID, appID: UUID, name: String, credentialHash: [UInt8], createdAt: Int64, revokedAt: Int64? = nil) {
        self.id = id
        self.appID = appID
        self.name = name
        self.credentialHash = credentialHash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// Whether it may be used.
    public var isRevoked: Bool { revokedAt != nil }
}
