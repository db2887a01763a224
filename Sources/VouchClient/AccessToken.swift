import Foundation

/// A short-lived token for one of the app's own services (a chat server, a media relay), which
/// verify it offline against Vouch's published keys (PROTOCOL §8.16). Send it to that service
/// as `Authorization: Bearer <value>`; never to Vouch, which takes the session itself.
public struct AccessToken: Sendable, Equatable {
    /// The compact JWS.
    public let value: String
    public let expiresAt: Date
    /// The service it is for: the app's id unless one of the app's registered audiences was asked.
    public let audience: String
    /// The session it was minted for, so that a new session never reuses it.
    let sessionID: String

    /// Whether it is still worth sending at `now`: not within the last fifth of its life (at
    /// least 5 s, at most 30 s), so that it does not expire on its way to the service.
    func isFresh(at now: Date, lifetime: TimeInterval) -> Bool {
        expiresAt.timeIntervalSince(now) > min(30, max(5, lifetime / 5))
    }
}
