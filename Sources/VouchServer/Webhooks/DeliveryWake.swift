import Synchronization

/// Counts the delivery worker's attempts under way, and wakes its claiming loop when one finishes
/// (a slot is free, and the user's next event may be due), or lets it sleep until its poll
/// interval ends. A wake that comes while nobody waits is kept for the next wait, so none is lost
/// between a check and the wait.
final class DeliveryWake: Sendable {
    private let attempts = Atomic(0)

    var attemptsUnderWay: Int { attempts.load(ordering: .acquiring) }

    func attemptStarted() { attempts.add(1, ordering: .acquiringAndReleasing) }

    func attemptFinished() {
        attempts.subtract(1, ordering: .acquiringAndReleasing)
        wake()
    }

    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns on a wake, after `timeout`, or on cancellation, whichever comes first.
    func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForWake() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // The other child may be the waiter: resumed by the cancellation handler.
            await group.waitForAll()
        }
    }

    private func waitForWake() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
