import Synchronization
import Testing
import VouchSupport
import VouchTestSupport

/// The one-task wait behind the delivery worker, the PostgreSQL circuit's probe and the deadline
/// watcher: a wake is never lost and never delivered twice.
@Suite("A parking slot", .timeLimit(.minutes(1)))
struct ParkingSlotTests {
    private struct State {
        var wakes = 0
        var slot = ParkingSlot()
    }

    private final class Owner: Sendable {
        let state = Mutex(State())

        /// Parks until a wake is pending, and consumes it.
        func waitForWake() async {
            await state.park(in: \.slot) { state in
                guard state.wakes > 0 else { return false }
                state.wakes -= 1
                return true
            }
        }

        /// Resumes the parked task, or leaves the wake pending for the next wait.
        func wake() {
            state.withLock { state -> ParkedTask? in
                guard state.slot.isOccupied else {
                    state.wakes += 1
                    return nil
                }
                return state.slot.release()
            }?.resume()
        }

        var isParked: Bool { state.withLock { $0.slot.isOccupied } }

        /// Runs `body` in a task of its own and waits for it up to 10 s: a task left parked fails
        /// the test instead of hanging the run.
        func returns(_ what: String, _ body: @escaping @Sendable () async -> Void) async throws {
            let done = Atomic(false)
            let task = Task {
                await body()
                done.store(true, ordering: .releasing)
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while !done.load(ordering: .acquiring) {
                guard ContinuousClock.now < deadline else {
                    task.cancel()
                    throw TestFailure("\(what) did not return: the task is still parked")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }

        func waitUntilParked() async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while !isParked {
                guard ContinuousClock.now < deadline else { throw TestFailure("the task never parked") }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    @Test("a task that need not wait does not park, and what it found is consumed under the lock")
    func ready() async throws {
        let owner = Owner()
        owner.wake()
        try await owner.returns("a wait with a wake pending") { await owner.waitForWake() }
        #expect(owner.state.withLock { $0.wakes } == 0 && !owner.isParked)
    }

    @Test("a parked task returns when released, and leaves the slot empty")
    func released() async throws {
        let owner = Owner()
        let waiting = Task { await owner.waitForWake() }
        try await owner.waitUntilParked()
        owner.wake()
        try await owner.returns("the released wait") { await waiting.value }
        #expect(!owner.isParked && owner.state.withLock { $0.wakes } == 0, "the wake went to the parked task, not into the count")
    }

    @Test("cancelled while parked, or before parking, a task returns at once and leaves the slot empty")
    func cancelled() async throws {
        let owner = Owner()
        let waiting = Task { await owner.waitForWake() }
        try await owner.waitUntilParked()
        waiting.cancel()
        try await owner.returns("the wait cancelled while parked") { await waiting.value }
        #expect(!owner.isParked)

        try await owner.returns("a wait cancelled before it parks") {
            withUnsafeCurrentTask { $0?.cancel() }
            await owner.waitForWake()
        }
        #expect(!owner.isParked && owner.state.withLock { $0.wakes } == 0)

        owner.wake()
        #expect(owner.state.withLock { $0.wakes } == 1, "a wake after the cancelled waits is kept for the next")
    }

    @Test("10 000 wakes racing 10 000 waits: every wait returns, none is lost and none counted twice")
    func racing() async throws {
        let owner = Owner()
        let rounds = 10_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<rounds { await owner.waitForWake() }
            }
            group.addTask {
                for round in 0..<rounds {
                    owner.wake()
                    if round % 64 == 0 { await Task.yield() }
                }
            }
            group.addTask {
                try await Task.sleep(for: .seconds(60))
                throw TestFailure("a wake was lost: the waiter is still parked")
            }
            try await group.next()
            try await group.next()
            group.cancelAll()
        }
        #expect(owner.state.withLock { $0.wakes } == 0 && !owner.isParked)
    }
}
