/// Why the user was signed out (``VouchClientEvent/didDeauthenticate(userID:reason:)``), so that
/// an app can tell "show the sign-in screen" from "this device was signed out by its user, forget
/// them" and from "the session ended and could not be renewed".
///
/// A struct rather than an enum, as ``VouchClientError/Kind``: a reason added in a later version
/// breaks no app. Compare with the static members, in a `switch` with a `default:`.
public struct DeauthenticationReason: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Base: String, Sendable {
        case requested, signedOutFromAnotherDevice, userSuspended, challengeUnanswered, switchedUser
    }

    fileprivate let base: Base

    public var description: String { base.rawValue }

    /// The app called `deauthenticate()` (or `connect(userID:)` for another user, which calls it).
    /// The user's data container is gone.
    public static let requested = Self(base: .requested)
    /// The user signed this device out from another of their devices (`signOut(deviceWith:)`,
    /// `signOutOtherDevices()`): their data container is gone, and the client did not sign in
    /// again. Neither should the app by itself: show the sign-in screen and wait for the user.
    public static let signedOutFromAnotherDevice = Self(base: .signedOutFromAnotherDevice)
    /// The operator suspended the user: signing in again fails until they lift it. The user's
    /// data container is gone.
    public static let userSuspended = Self(base: .userSuspended)
    /// The server ended the session (expired, revoked, unknown) and the client could not sign the
    /// user in again: no provider, or every attempt failed. After an expiry the user's data
    /// container is kept for their return; after a revocation it is gone.
    public static let challengeUnanswered = Self(base: .challengeUnanswered)
    /// A sign-in of another user overtook this user's re-authentication.
    public static let switchedUser = Self(base: .switchedUser)
}
