/// What a client says about the device a session is used on (`POST /sessions` `"device"`), so that
/// the user can tell their sessions apart. Every field is optional, each a short human-readable
/// string under the same rules as names (1…128 bytes, no control or bidirectional characters).
public struct DeviceDescription: Codable, Sendable, Equatable {
    /// A name the user recognises ("Alice's iPhone").
    public var name: String?
    /// The operating system and its version ("iOS 18.1", "Linux").
    public var platform: String?
    /// The app's version ("2.4.1 (311)").
    public var appVersion: String?

    public init(name: String? = nil, platform: String? = nil, appVersion: String? = nil) {
        self.name = name
        self.platform = platform
        self.appVersion = appVersion
    }

    /// Whether nothing is described: stored as no device at all.
    public var isEmpty: Bool { name == nil && platform == nil && appVersion == nil }

    enum CodingKeys: String, CodingKey {
        case name, platform
        case appVersion = "app_version"
    }

    /// Writes absent fields as `null` (every member, always).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(platform, forKey: .platform)
        try container.encode(appVersion, forKey: .appVersion)
    }
}
