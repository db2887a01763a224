import Foundation
import VouchProtocol

/// One of the signed-in user's devices in this app: a live session of theirs (`devices()`), as
/// its sign-in described it, so that the user can recognise it and sign it out.
public struct Device: Sendable, Equatable, Identifiable {
    /// The session's public id (a lower-case UUID), for `signOut(deviceWith:)`; never its token.
    public var id: String
    /// What the user calls it ("Alice's iPhone"), when its app sent a name.
    public var name: String?
    /// Its operating system and version ("iOS 18.1"), when its app sent them.
    public var platform: String?
    /// Its app's version ("2.4.1 (311)"), when its app sent one.
    public var appVersion: String?
    /// When it signed in, by the server's clock.
    public var createdAt: Date
    /// When it last made a request, to within a minute, by the server's clock.
    public var lastSeenAt: Date
    /// When its session ends unless renewed, by the server's clock.
    public var expiresAt: Date
    /// Whether this is the device the client runs on.
    public var isCurrent: Bool

    public init(
        id: String, name: String?, platform: String?, appVersion: String?, createdAt: Date, lastSeenAt: Date, expiresAt: Date,
        isCurrent: Bool
    ) {
        self.id = id
        self.name = name
        self.platform = platform
        self.appVersion = appVersion
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.isCurrent = isCurrent
    }

    /// The wire summary's times parsed; nil when one is not the RFC 3339 the protocol promises.
    init?(_ summary: SessionSummary) {
        guard let created = Timestamp.parse(summary.createdAt), let seen = Timestamp.parse(summary.lastSeenAt),
            let expires = Timestamp.parse(summary.expiresAt)
        else { return nil }
        self.init(
            id: summary.sessionID, name: summary.device?.name, platform: summary.device?.platform,
            appVersion: summary.device?.appVersion, createdAt: Date(timeIntervalSince1970: TimeInterval(created)),
            lastSeenAt: Date(timeIntervalSince1970: TimeInterval(seen)), expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)),
            isCurrent: summary.current)
    }
}
