import Synchronization

/// The outcome of one sign-in in flight, awaited by any number of callers (`connect`, `start`,
/// requests whose challenge it answers). A caller whose task is cancelled stops waiting at once;
/// when the last one has left before the end, the flight itself is cancelled, so that nobody's
/// abandoned sign-in goes on asking the app's backend.
final class FlightOutcome: Sendable {
    typealias Outcome = Result<Void, VouchClientError>

    private struct State {
        var outcome: Outcome?
        var waiters: [UInt64: CheckedContinuation<Outcome, Never>] = [:]
        /// Waiters cancelled before they were registered.
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
        var cancelFlight: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    /// How the flight is stopped when nobody waits for it any more.
    func onAbandoned(_ cancel: @escaping @Sendable () -> Void) { state.withLock { $0.cancelFlight = cancel } }

    /// The flight's end: every waiter, present and future, gets `outcome`.
    func finish(_ outcome: Outcome) {
        let waiters = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            state.cancelFlight = nil
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// The flight's outcome, or `cancelled` as soon as the calling task is cancelled.
    func wait() async -> Outcome {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let (now, cancelFlight) = state.withLock { state -> (Outcome?, (@Sendable () -> Void)?) in
                    if let outcome = state.outcome { return (outcome, nil) }
                    if state.cancelledEarly.remove(id) != nil {
                        return (.failure(.cancelled), state.waiters.isEmpty ? state.cancelFlight : nil)
                    }
                    state.waiters[id] = continuation
                    return (nil, nil)
                }
                if let now { continuation.resume(returning: now) }
                cancelFlight?()
            }
        } onCancel: {
            leave(id)
        }
    }

    private func leave(_ id: UInt64) {
        let (waiter, cancelFlight) = state.withLock { state -> (CheckedContinuation<Outcome, Never>?, (@Sendable () -> Void)?) in
            guard state.outcome == nil else { return (nil, nil) }
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                state.cancelledEarly.insert(id)
                return (nil, nil)
            }
            return (waiter, state.waiters.isEmpty ? state.cancelFlight : nil)
        }
        waiter?.resume(returning: .failure(.cancelled))
        cancelFlight?()
    }
}
