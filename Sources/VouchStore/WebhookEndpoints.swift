import Foundation

/// An address an app's backend receives security events at (PROTOCOL §8.17), with the kinds it
/// asked for and the secret its deliveries are signed with.
public struct WebhookEndpointRecord: Sendable, Equatable {
    public var id: UUID
    public var appID: UUID
    /// Checked by the server's outbound policy before it is stored, and again at each delivery.
    public var url: String
    /// `SecurityEventKind` raw values, in the order given, no repeats (`WordListColumn`).
    public var events: [String]
    /// The HMAC key of the deliveries' `Vouch-Signature`, as shown once when it was made. Kept as
    /// text because Vouch signs with it; it never reaches a log line or a listing.
    public var secret: String
    public var createdAt: Int64
    public var updatedAt: Int64
    /// Set when deliveries stopped (by the delivery worker, after failing too long); cleared by a
    /// resume.
    public var pausedAt: Int64?
    /// Why it was paused, for its owner: the last failure, in one line.
    public var pauseReason: String?

    public init(
        id: UUID, appID: UUID, url: String, events: [String], secret: String, createdAt: Int64, updatedAt: Int64? = nil,
        pausedAt: Int64? = nil, pauseReason: String? = nil
    ) {
        self.id = id
        self.appID = appID
        self.url = url
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.pausedAt = pausedAt
        self.pauseReason = pauseReason
    }

    public var isPaused: Bool { pausedAt != nil }
}

extension WebhookEndpointRecord: CustomStringConvertible {
    /// Everything but the secret, so that printing a record cannot leak it.
    public var description: String {
        "WebhookEndpointRecord(id: \(id), appID: \(appID), url: \(url), events: \(events), createdAt: \(createdAt), "
            + "updatedAt: \(updatedAt), pausedAt: \(pausedAt.map(String.init) ?? "nil"), secret: <redacted>)"
    }
}

/// What `Store.updateWebhookEndpoint` changes: each field left `nil` stays as it is.
public struct WebhookEndpointChange: Sendable, Equatable {
    public var url: String?
    public var events: [String]?
    /// Clears a pause, so that deliveries start again.
    public var resume: Bool

    public init(url: String? = nil, events: [String]? = nil, resume: Bool = false) {
        self.url = url
        self.events = events
        self.resume = resume
    }
}
