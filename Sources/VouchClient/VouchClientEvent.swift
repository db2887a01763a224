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
}

public extension VouchClientDelegate {
    func vouchClient(_ client: VouchClient, didReceiveAuthenticationChallengeWith nonce: String, reason: ChallengeReason) async {}
    func vouchClient(_ client: VouchClient, didAuthenticateAs user: Identity) async {}
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String, reason: DeauthenticationReason) async {
        await vouchClient(client, didDeauthenticate: userID)
    }
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String) async {}
    func vouchClient(_ client: VouchClient, didDiscardStoredSession reason: String) async {}
}
