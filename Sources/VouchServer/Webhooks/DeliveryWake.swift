import Synchronization
import VouchSupport

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
        var loop = ParkingSlot()
    }

    private let state = Mutex(State())

    func wake() {
        state.withLock { state -> ParkedTask? in
            guard state.loop.isOccupied else {
                state.pending = true
                return nil
            }
            return state.loop.release()
        }?.resume()
    }

    /// Returns on a wake, after `timeout`, or on cancellation, whichever comes first.
    func wait(timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await self.state.park(in: \.loop) { state in
                    defer { state.pending = false }
                    return state.pending
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            // The other child may be the parked one: cancelling it lets it go.
            group.cancelAll()
            await group.waitForAll()
        }
    }
}
