/// The kinds of security event (PROTOCOL §8.17): what happened to a session, a user or an app's
/// catalogue that an app's backend may want to hear of. A webhook endpoint names the kinds it
/// receives; a kind added later reaches only endpoints that ask for it.
public enum SecurityEventKind: String, Sendable, CaseIterable, Codable {
    case sessionCreated = "session.created"
    case sessionEnded = "session.ended"
    case userSuspended = "user.suspended"
    case userUnsuspended = "user.unsuspended"
    case userDeleted = "user.deleted"
    case cutoffSet = "cutoff.set"
    case keyCreated = "key.created"
    case keyDisabled = "key.disabled"
    case keyEnabled = "key.enabled"
    case keyDeleted = "key.deleted"
    case registrationSecretRevoked = "registration_secret.revoked"
    /// A provider's key source stopped answering with usable keys; its last good keys still verify.
    case keySourceFailing = "key_source.failing"
    /// The key source answered again after failing.
    case keySourceRecovered = "key_source.recovered"
}
