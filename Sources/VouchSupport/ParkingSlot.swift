import Synchronization

/// Room for one task suspended until its owner lets it go (a worker waiting for work, a probe
/// waiting for an outage).
///
/// The slot lives inside the owner's own `Mutex` state, so whether to wait is decided under the
/// same lock as what the task waits for: a wake can come neither between the check and the wait
/// (lost) nor after the task left (resuming it twice). See ``Synchronization/Mutex/park(in:unless:)``.
public struct ParkingSlot: Sendable {
    fileprivate var parked: CheckedContinuation<Void, Never>?

    public init() {}

    /// Whether a task waits in the slot.
    public var isOccupied: Bool { parked != nil }

    /// Empties the slot, called under the owner's lock; the task it held, if any, is resumed by
    /// ``ParkedTask/resume()`` once outside the lock.
    public mutating func release() -> ParkedTask? {
        defer { parked = nil }
        return parked.map(ParkedTask.init)
    }
}

/// A task taken out of a ``ParkingSlot``, to be resumed outside the lock.
public struct ParkedTask: Sendable {
    fileprivate let continuation: CheckedContinuation<Void, Never>

    public func resume() { continuation.resume() }
}

extension Mutex {
    /// Suspends the calling task in the slot at `slot` unless `ready`, run under the lock, says it
    /// need not wait. Returns once the owner releases the slot, or at once when the task is or
    /// becomes cancelled.
    ///
    /// `ready` may change the state, to consume what it found (a pending wake). One task parks in a
    /// slot at a time; a second would be a caller's bug, and traps.
    public borrowing func park(
        in slot: any WritableKeyPath<Value, ParkingSlot> & Sendable, unless ready: (inout Value) -> Bool
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let goOn = withLock { state -> Bool in
                    // The cancellation flag is set before the handler below runs, so a cancel that
                    // comes before the continuation is stored is seen here.
                    if ready(&state) || Task.isCancelled { return true }
                    precondition(state[keyPath: slot].parked == nil, "one task parks in a slot at a time")
                    state[keyPath: slot].parked = continuation
                    return false
                }
                if goOn { continuation.resume() }
            }
        } onCancel: {
            withLock { $0[keyPath: slot].release() }?.resume()
        }
    }
}
