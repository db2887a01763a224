/// The life cycle of a provider's signing key (PROTOCOL §4).
///
/// `deleted` is a tombstone rather than a missing row so that a token naming a deleted key is told
/// `eit_key_deleted` instead of the less helpful `eit_key_not_found`.
public enum KeyStatus: String, Codable, Sendable, CaseIterable {
    case active
    case disabled
    case deleted
}
