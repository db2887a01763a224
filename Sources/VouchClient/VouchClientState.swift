import Foundation
import Synchronization
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

/// The current state, readable without awaiting the actor, and every `states()` stream, each of
/// which receives the current state first and then every change, in order.
final class StateHub: Sendable {
    private struct Subscribers {
        var current: VouchClientState = .unknown
        var streams: [UUID: AsyncStream<VouchClientState>.Continuation] = [:]
    }

    private let subscribers = Mutex(Subscribers())

    var current: VouchClientState { subscribers.withLock { $0.current } }

    func subscribe() -> AsyncStream<VouchClientState> {
        let (stream, continuation) = AsyncStream.makeStream(of: VouchClientState.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.streams.removeValue(forKey: id) } }
        // Registered and given the current state under one lock: no change falls in between.
        subscribers.withLock {
            $0.streams[id] = continuation
            continuation.yield($0.current)
        }
        return stream
    }

    /// Publishes `state` when it differs from the current one. Called on the client actor, so
    /// changes arrive in the order they happened.
    func publish(_ state: VouchClientState) {
        subscribers.withLock {
            guard $0.current != state else { return }
            $0.current = state
            for continuation in $0.streams.values { continuation.yield(state) }
        }
    }

    func finish() {
        for continuation in subscribers.withLock({ Array($0.streams.values) }) { continuation.finish() }
    }
}
