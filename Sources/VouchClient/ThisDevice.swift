import Foundation

extension DeviceDescription {
    /// This device as the system describes it, for `Configuration.device`: the operating system
    /// and its version ("macOS 15.1", "iOS 18.1", "Debian GNU/Linux 12 (bookworm)") and the main
    /// bundle's version ("2.4.1 (311)"; none for a command-line tool without an Info.plist), so
    /// that the user can tell their devices apart in `devices()`.
    ///
    /// - Parameter name: what the user calls this device ("Alice's iPhone"). None by default: a
    ///   host or device name is personal data (it often carries the owner's name) that operators
    ///   see too, and on iOS the real device name needs an entitlement; the app decides whether to
    ///   send one, typically one the user typed.
    public static func thisDevice(name: String? = nil) -> DeviceDescription {
        DeviceDescription(name: name, platform: platform(ProcessInfo.processInfo), appVersion: appVersion(Bundle.main.infoDictionary))
    }

    /// The operating system's name and version. Apple's systems report numbers only, so the name
    /// comes from the build; Linux reports its distribution's name, which says more than the kernel's.
    static func platform(_ info: ProcessInfo) -> String {
        let version = info.operatingSystemVersion
        let number =
            "\(version.majorVersion).\(version.minorVersion)" + (version.patchVersion > 0 ? ".\(version.patchVersion)" : "")
        #if os(macOS) || targetEnvironment(macCatalyst)
            return "macOS \(number)"
        #elseif os(visionOS)
            return "visionOS \(number)"
        #elseif os(iOS)
            return "iOS \(number)"
        #elseif os(tvOS)
            return "tvOS \(number)"
        #elseif os(watchOS)
            return "watchOS \(number)"
        #elseif os(Linux)
            let distribution = info.operatingSystemVersionString
            return distribution.contains("Linux") ? distribution : "Linux \(distribution)"
        #else
            return info.operatingSystemVersionString
        #endif
    }

    /// `CFBundleShortVersionString (CFBundleVersion)`, either alone when the other is missing or the same.
    static func appVersion(_ info: [String: Any]?) -> String? {
        let short = info?["CFBundleShortVersionString"] as? String
        let build = info?["CFBundleVersion"] as? String
        switch (short, build) {
        case (let short?, let build?) where short != build: return "\(short) (\(build))"
        case (let short?, _): return short
        case (nil, let build?): return build
        case (nil, nil): return nil
        }
    }
}
