import Foundation
import VouchProtocol

/// How a session was opened, so that a challenge is answered the same way.
enum SignInProfile: String, Codable, Sendable {
    /// LayerKit: nonce → identity token.
    case identityToken
    /// Sinch: registration token, no server nonce.
    case registration
}

/// The session as persisted between launches. It names the server and app it belongs to, so
/// that a file left by another configuration is never used.
struct StoredSession: Codable, Sendable, Equatable {
    static let currentVersion = 1

    var version = StoredSession.currentVersion
    var server: String
    var appID: String
    var sessionToken: String
    var expiresAt: String
    var user: Identity
    var profile: SignInProfile
    /// The name of the user's data container directory.
    var container: String
    /// The session's public id, so that `signOut(deviceWith:)` knows this device's own; nil for
    /// a session from a server before devices, or stored by a version that did not keep it.
    var sessionID: String?

    enum CodingKeys: String, CodingKey {
        case version, server, profile, container, user
        case appID = "app_id"
        case sessionToken = "session_token"
        case expiresAt = "expires_at"
        case sessionID = "session_id"
    }
}

/// What reading the credential store found.
enum StoredSessionLoad: Sendable {
    case none
    /// A session, and the bytes it was read from.
    case session(StoredSession, Data)
    /// Present but unusable (corrupt, another app's or server's): treated as absent, left in
    /// place, and reported to the app through `VouchClientEvent.storedSessionDiscarded`.
    case discarded(String, Data)
}
