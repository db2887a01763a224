import Observation
import VouchProtocol

/// The client's state as an `@Observable` object, for SwiftUI: a view that reads `state` or
/// `user` is redrawn when it changes.
///
/// It follows the client's `states()` stream from creation (starting with the current state, so
/// the first frame is right) until it is released.
@MainActor
@Observable
public final class VouchClientModel {
    public private(set) var state: VouchClientState
    /// The user to show: signed in, or being signed in again after a challenge.
    public var user: Identity? { state.user }

    @ObservationIgnored private var following: Task<Void, Never>?

    public init(client: VouchClient) {
        state = client.currentState
        let states = client.states()
        following = Task { [weak self] in
            for await state in states {
                guard let self else { return }
                self.state = state
            }
        }
    }

    isolated deinit { following?.cancel() }
}
