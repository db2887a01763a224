import Synchronization

/// A one-shot signal for tests: `wait` returns once `open` was called (before or after), and
/// `waitIgnoringCancellation` holds its caller until then whatever happens to the caller's task,
/// as a body deaf to cancellation (a badly written provider, a read nobody answers) would.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// `wait(seconds:)` ran out before `open`.
    struct NotOpened: Error, CustomStringConvertible {
        public let seconds: Double
        public var description: String { "not signalled within \(seconds) s" }
    }

    private let state = Mutex(State())

    public init() {}

    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for `open`, whatever happens to the waiting task.
    public func waitIgnoringCancellation() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Waits for `open`, throwing `NotOpened` after `seconds` (a generous deadline, not a sleep).
    public func wait(seconds: Double = 120) async throws {
        let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.waitIgnoringCancellation()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            if !first { self.open() }  // releases the waiting child so the group can end
            return first
        }
        guard opened else { throw NotOpened(seconds: seconds) }
    }
}
