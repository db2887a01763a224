/// The optional identity fields of a user: what a Layer token may carry (`display_name`,
/// `first_name`, `last_name`, `avatar_url`) and what the store keeps. One type for both, so a
/// verified token's fields go to the store as they are; `nil` means "not provided".
public struct IdentityProfile: Sendable, Equatable {
    public var displayName: String?
    public var firstName: String?
    public var lastName: String?
    public var avatarURL: String?

    public init(displayName: String? = nil, firstName: String? = nil, lastName: String? = nil, avatarURL: String? = nil) {
        self.displayName = displayName
        self.firstName = firstName
        self.lastName = lastName
        self.avatarURL = avatarURL
    }
}
