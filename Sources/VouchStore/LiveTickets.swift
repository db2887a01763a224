import Foundation

/// A single-use, short-lived credential for opening the live channel from a browser, which cannot
/// set an `Authorization` header on a WebSocket: it stands for the session that asked for it, and
/// only the SHA-256 of it is kept, like a session token.
public struct LiveTicket: Sendable, Equatable {
    public var ticketHash: [UInt8]
    public var sessionTokenHash: [UInt8]
    /// Unix seconds after which it opens nothing.
    public var expiresAt: Int64

    public init(ticketHash: [UInt8], sessionTokenHash: [UInt8], expiresAt: Int64) {
        self.ticketHash = ticketHash
        self.sessionTokenHash = sessionTokenHash
        self.expiresAt = expiresAt
    }

    /// The longest a ticket may live (PROTOCOL §8.15).
    public static let maximumLifetimeSeconds: Int64 = 30
}
