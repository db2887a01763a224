import Foundation
import VouchProtocol

/// Everything that can go wrong in the client, as values an app can switch on.
///
/// Each case's `description` says what a developer should do about it, because these errors end
/// up in bug reports more often than in code.
public enum VouchClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `authenticate` or `start` while another user is signed in: LayerKit's rule is that the app
    /// deauthenticates first (or uses `connect(userID:)`, which does both).
    case alreadyAuthenticated(userID: String)
    /// The call needs a signed-in user and there is none.
    case notAuthenticated
    /// `POST /sessions` refused the token (422); the rejection carries the server's reason,
    /// message and clock.
    case invalidIdentityToken(IdentityTokenRejection)
    /// The server challenged the session and the client could not answer: no identity-token
    /// provider is configured, the reason cannot be fixed by signing in again (suspension), or
    /// every bounded attempt failed (`underlying` says why the last one did).
    case challengeUnanswered(ChallengeDetails)
    /// The app's identity-token or registration-credentials provider threw.
    case tokenProviderFailed(message: String)
    /// The app's provider did not answer within the configured timeout.
    case tokenProviderTimedOut(seconds: Double)
    /// A sign-in that was overtaken by `deauthenticate()` or a user switch: its result was
    /// discarded so that it cannot resurrect the previous user's session.
    case superseded
    /// The request did not reach the server or its answer did not come back.
    case network(message: String)
    /// The server answered 5xx (503 while its store is unreachable).
    case serverUnavailable(status: Int)
    /// 429: wait `retryAfterSeconds` before the next sign-in attempt.
    case rateLimited(retryAfterSeconds: Int?)
    /// The server does not know the app the client was created for (403 `invalid_app_id`).
    case invalidAppID(message: String)
    /// The persisted session could not be read for a reason that may pass (locked keychain,
    /// unreadable or foreign-owned file). The client is *not* treated as signed out: retry later.
    case credentialStoreUnavailable(message: String)
    /// Any other error answer of the server, with its body when it had the protocol's shape.
    case server(status: Int, id: String?, message: String?)
    /// An answer that does not follow the protocol.
    case invalidResponse(message: String)

    public var description: String {
        switch self {
        case .alreadyAuthenticated(let userID):
            "User \"\(userID)\" is already authenticated: call deauthenticate() and wait for it, or use connect(userID:), before authenticating another user."
        case .notAuthenticated:
            "No user is authenticated: authenticate(identityToken:), connect(userID:) or start(userID:) first."
        case .invalidIdentityToken(let rejection):
            "The server refused the identity token (\(rejection.reason)): \(rejection.message) Fix the token your backend mints."
                + (rejection.clockSkewSeconds.map { " The server's clock differs from this device's by about \($0) s; check the clock of the machine that minted the token." } ?? "")
        case .challengeUnanswered(let details):
            "The server asked for a new sign-in (\(details.reason.rawValue)) and the client could not answer it"
                + (details.underlying.map { ": \($0)" } ?? ": configure an identity-token provider or authenticate again with the challenge's nonce.")
        case .tokenProviderFailed(let message):
            "The app's token provider threw: \(message). Check the app's backend."
        case .tokenProviderTimedOut(let seconds):
            "The app's token provider did not answer within \(seconds) s. Check the app's backend, or raise providerTimeout."
        case .superseded:
            "The sign-in was discarded because deauthenticate() or a user switch happened while it was in flight."
        case .network(let message):
            "The Vouch server could not be reached (\(message)). Retry when the device is online."
        case .serverUnavailable(let status):
            "The Vouch server is unavailable (HTTP \(status)). Retry later."
        case .rateLimited(let retryAfter):
            "Too many sign-in requests: retry after \(retryAfter.map { "\($0) s" } ?? "a while")."
        case .invalidAppID(let message):
            "The server does not know this app id (\(message)). Check the appID passed to VouchClient."
        case .credentialStoreUnavailable(let message):
            "The stored session could not be read (\(message)). The user is not signed out; retry once the store is readable."
        case .server(let status, let id, let message):
            "The server answered HTTP \(status)\(id.map { " \($0)" } ?? "")\(message.map { ": \($0)" } ?? "")."
        case .invalidResponse(let message):
            "The server's answer does not follow the Vouch protocol: \(message)."
        }
    }
}

/// A 422 from `POST /sessions`: what the server disliked about a token, and when.
public struct IdentityTokenRejection: Sendable, Equatable {
    /// The protocol's reason (`eit_…`), as sent.
    public var reason: String
    /// The reason when this version of the SDK knows it.
    public var knownReason: RejectionReason? { RejectionReason(rawValue: reason) }
    public var message: String
    /// The server's clock when it refused the token (Unix seconds).
    public var serverTime: Int64?
    /// `serverTime` minus this device's clock at the answer, in whole seconds; present for
    /// `eit_expired` and `eit_not_before`, where a wrong clock is the usual cause.
    public var clockSkewSeconds: Int64?

    public init(reason: String, message: String, serverTime: Int64?, clockSkewSeconds: Int64?) {
        self.reason = reason
        self.message = message
        self.serverTime = serverTime
        self.clockSkewSeconds = clockSkewSeconds
    }
}

/// The authentication challenge as the server sent it, and why the client could not answer it.
public struct ChallengeDetails: Sendable, Equatable {
    /// A fresh nonce bound to this app: hand it to the backend to sign in again.
    public var nonce: String
    public var reason: ChallengeReason
    /// Why the automatic answer failed, when one was attempted.
    public var underlying: String?

    public init(nonce: String, reason: ChallengeReason, underlying: String? = nil) {
        self.nonce = nonce
        self.reason = reason
        self.underlying = underlying
    }
}
