import Foundation
import VouchProtocol

/// What happened to the client's authentication, in the order it happened.
public enum VouchClientEvent: Sendable, Equatable {
    /// The server challenged the session (LayerKit's `didReceiveAuthenticationChallengeWithNonce`).
    /// The session is over when this arrives. With a provider the client answers by itself (the
    /// state is `reauthenticating` meanwhile) and `didAuthenticate` follows, or `didDeauthenticate`
    /// if it fails; without one `didDeauthenticate` follows at once and the app signs in again
    /// with `nonce`. Not sent when the user signed this device out from another one: the app
    /// must not sign in again then, and hears only `didDeauthenticate` with
    /// ``DeauthenticationReason/signedOutFromAnotherDevice``.
    case authenticationChallenge(nonce: String, reason: ChallengeReason)
    /// A user is now authenticated (after a sign-in, an automatic answer to a challenge, or a
    /// session restored from the store).
    case didAuthenticate(Identity)
    /// The user is signed out (by `deauthenticate()`, by the user from another of their devices,
    /// or after a challenge that could not be answered) and their local data container is gone
    /// (or, after a challenge for an expired session, kept for their return); `reason` says which.
    /// Never sent during a silent re-authentication.
    case didDeauthenticate(userID: String, reason: DeauthenticationReason)
    /// A stored session could not be used (corrupt, for another app or server) and was dropped.
    case storedSessionDiscarded(reason: String)
    /// The live channel (PROTOCOL §8.15) is open and watched: the moment the server ends this
    /// session, the client hears it, without waiting for a request to be refused. `sessionID` is
    /// the session it follows.
    case liveChannelConnected(sessionID: String?)
    /// The live channel closed or could not open; the value says why and whether the client opens
    /// it again. Requests keep working meanwhile: the server's 401s are answered as without it.
    case liveChannelDisconnected(LiveChannelDisconnection)
    /// The server ended the session and said so over the live channel: `reason` as in a 401, and
    /// the wait the server asked for before the client asks its backend (a cutoff spreads its
    /// answers). ``authenticationChallenge(nonce:reason:)`` and the rest follow as for a 401.
    case liveChannelChallenge(reason: ChallengeReason, answerAfterSeconds: Double)
    /// The client answered a live challenge over the channel itself: the new session is installed
    /// (``didAuthenticate(_:)`` came just before) and the socket follows it without reconnecting.
    case liveChannelReauthenticated(Identity)
}

/// LayerKit's `LYRClientDelegate`, for apps that prefer a delegate to `events()`.
///
/// Calls arrive one at a time and in order, from one task of the client's; each method is `async`,
/// and the next event waits for it. Hop to the main actor inside a method if UI work needs it.
public protocol VouchClientDelegate: AnyObject, Sendable {
    func vouchClient(_ client: VouchClient, didReceiveAuthenticationChallengeWith nonce: String, reason: ChallengeReason) async
    func vouchClient(_ client: VouchClient, didAuthenticateAs user: Identity) async
    /// Called with every ``VouchClientEvent/didDeauthenticate(userID:reason:)``; by default it
    /// calls `vouchClient(_:didDeauthenticate:)`, so that a delegate written before reasons
    /// existed is still told.
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String, reason: DeauthenticationReason) async
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String) async
    func vouchClient(_ client: VouchClient, didDiscardStoredSession reason: String) async
    /// Called with each of the live channel's events (``VouchClientEvent/liveChannelConnected(sessionID:)``
    /// and the other `liveChannel` cases), for an app that shows the channel's state.
    func vouchClient(_ client: VouchClient, liveChannelEvent event: VouchClientEvent) async
}

public extension VouchClientDelegate {
    func vouchClient(_ client: VouchClient, didReceiveAuthenticationChallengeWith nonce: String, reason: ChallengeReason) async {}
    func vouchClient(_ client: VouchClient, didAuthenticateAs user: Identity) async {}
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String, reason: DeauthenticationReason) async {
        await vouchClient(client, didDeauthenticate: userID)
    }
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String) async {}
    func vouchClient(_ client: VouchClient, didDiscardStoredSession reason: String) async {}
    func vouchClient(_ client: VouchClient, liveChannelEvent event: VouchClientEvent) async {}
}
