import Foundation
import VouchProtocol

/// The signed-in user and their session as the server sees them (`GET /users/me`), with the
/// session's times as `Date`s.
public struct CurrentUser: Sendable, Equatable {
    public var user: Identity
    /// When the server opened the session, by the server's clock.
    public var sessionCreatedAt: Date
    /// When the server will end the session, by the server's clock (the device's may differ).
    public var sessionExpiresAt: Date

    public init(user: Identity, sessionCreatedAt: Date, sessionExpiresAt: Date) {
        self.user = user
        self.sessionCreatedAt = sessionCreatedAt
        self.sessionExpiresAt = sessionExpiresAt
    }

    /// The wire answer's times parsed; nil when one is not the RFC 3339 the protocol promises.
    init?(_ response: CurrentUserResponse) {
        guard let created = Timestamp.parse(response.session.createdAt), let expires = Timestamp.parse(response.session.expiresAt) else {
            return nil
        }
        self.init(
            user: response.user, sessionCreatedAt: Date(timeIntervalSince1970: TimeInterval(created)),
            sessionExpiresAt: Date(timeIntervalSince1970: TimeInterval(expires)))
    }
}
