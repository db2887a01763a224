import Foundation
import VouchProtocol

/// Where the client's authentication stands now; an app draws its screens from this value
/// rather than from the events that led to it.
///
/// A silent re-authentication (a challenge the client answers by itself) is
/// `reauthenticating`, not a sign-out: the user stays on screen while it runs.
public enum VouchClientState: Sendable, Equatable {
    /// The stored session has not been read yet, or could not be read now (a locked keychain):
    /// not the same as signed out, so an app shows neither its sign-in screen nor the user's data.
    case unknown
    /// Nobody is signed in.
    case signedOut
    /// `connect`, `start` or `authenticate` is signing `userID` in.
    case signingIn(userID: String)
    case signedIn(Identity)
    /// The server ended `user`'s session and the client is signing them in again by itself.
    case reauthenticating(Identity)

    /// The user the app should show: signed in, or being signed in again after a challenge.
    public var user: Identity? {
        switch self {
        case .signedIn(let user), .reauthenticating(let user): user
        case .unknown, .signedOut, .signingIn: nil
        }
    }
}
