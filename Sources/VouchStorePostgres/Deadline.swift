import Synchronization
import VouchStore
import VouchSupport

/// Bounds the wait of every operation of one store with one watcher, instead of a timer for each.
///
/// `run` returns the body's result, or throws `DeadlineExceeded` once the timeout has passed,
/// whichever comes first, even if the body does not react to cancellation (a lease waiting for a
/// server that is down, a read on a connection nobody answers). On timeout the body is cancelled
/// and left to finish on its own; whatever it then does is not acknowledged to anyone. This is
/// what bounds every request's wait on the database.
///
/// Not a sleeping task per operation: a `Task.sleep` that is cancelled early still leaves its
/// timer with the runtime until it would have fired, so at a few thousand operations a second
/// tens of thousands of timers would be pending, and a timer thread wakes for each. Here an
/// operation starts one task (the body, so that it can be abandoned) and registers its deadline;
/// one watcher task looks at the registered deadlines every `resolution` while there are any, and
/// sleeps without a timer while there are none. A deadline is therefore met within `resolution`
/// after it passes. The watcher is ``watch()``, run by the store in its scope; deadlines are met
/// while it runs.
final class DeadlineWatch: Sendable {
    /// How late after its deadline an operation may be given up at most.
    let resolution: Duration

    private struct Registered {
        let deadline: ContinuousClock.Instant
        /// Gives the operation up with this error (once, if it has not finished).
        let giveUp: @Sendable (any Error) -> Void
        /// For the message the caller gets when the deadline passes (made only then).
        let operation: String
        let timeout: Duration
    }

    private struct State {
        var registered: [UInt64: Registered] = [:]
        var nextID: UInt64 = 0
        /// The watcher, waiting for the first registration after an empty spell.
        var watcher = ParkingSlot()
        var stopped = false
    }

    private let state = Mutex(State())

    /// - Parameter resolution: at least a millisecond.
    init(resolution: Duration) {
        self.resolution = max(resolution, .milliseconds(1))
    }

    /// The resolution for operations bounded by `timeout`: a tenth of it, between 10 ms and 100 ms.
    static func resolution(for timeout: Duration) -> Duration {
        min(max(timeout / 10, .milliseconds(10)), .milliseconds(100))
    }

    /// Gives every registered operation up and ends the watcher (within `resolution`); later
    /// calls of `run` fail at once.
    func stop() {
        let (watcher, registered) = state.withLock { state in
            state.stopped = true
            defer { state.registered = [:] }
            return (state.watcher.release(), Array(state.registered.values))
        }
        watcher?.resume()
        for operation in registered { operation.giveUp(Self.closed) }
    }

    /// Runs `body`, bounded by `timeout` (see the type's description).
    func run<T: Sendable>(
        _ timeout: Duration, operation: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let pending = PendingOperation(continuation)
            let work = Mutex<Task<Void, Never>?>(nil)
            let giveUp: @Sendable (any Error) -> Void = { error in
                if pending.finish(.failure(error)) { work.withLock { $0?.cancel() } }
            }
            let registration = register(Registered(deadline: .now + timeout, giveUp: giveUp, operation: operation, timeout: timeout))
            guard let id = registration.id else {
                _ = pending.finish(.failure(Self.closed))
                return
            }
            registration.watcher?.resume()
            let task = Task {
                let result: Result<T, any Error>
                do { result = .success(try await body()) } catch { result = .failure(error) }
                if pending.finish(result) { self.unregister(id) }
            }
            work.withLock { $0 = task }
        }
    }

    private func register(_ operation: Registered) -> (id: UInt64?, watcher: ParkedTask?) {
        state.withLock { state in
            guard !state.stopped else { return (nil, nil) }
            let id = state.nextID
            state.nextID += 1
            state.registered[id] = operation
            return (id, state.watcher.release())
        }
    }

    private func unregister(_ id: UInt64) {
        _ = state.withLock { $0.registered.removeValue(forKey: id) }
    }

    /// The watcher, until `stop()`: parked while nothing is registered, otherwise a look every
    /// `resolution`. Cancelling it stops the watch as `stop()` does.
    func watch() async {
        await withTaskCancellationHandler {
            while true {
                await state.park(in: \.watcher) { $0.stopped || !$0.registered.isEmpty }
                if state.withLock({ $0.stopped }) { return }
                do { try await Task.sleep(for: resolution) } catch { return }
                expireOverdue(at: .now)
            }
        } onCancel: {
            stop()
        }
    }

    /// Gives up every operation whose deadline has passed (outside the lock: giving up resumes
    /// the caller and cancels the body).
    func expireOverdue(at now: ContinuousClock.Instant) {
        let overdue = state.withLock { state -> [Registered] in
            let ids = state.registered.compactMap { $0.value.deadline <= now ? $0.key : nil }
            return ids.compactMap { state.registered.removeValue(forKey: $0) }
        }
        for operation in overdue {
            operation.giveUp(DeadlineExceeded(operation: operation.operation, timeout: operation.timeout))
        }
    }

    private static let closed = StoreError.unavailable("the store is closed")

    /// Operations registered and not yet finished or given up (tests).
    var registeredCount: Int { state.withLock { $0.registered.count } }
}

/// The caller's continuation, resumed exactly once by whichever comes first: the body's result
/// or the deadline.
private final class PendingOperation<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, any Error>?>

    init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }

    /// Resumes the caller with `result`; returns whether this call was the one that did.
    func finish(_ result: Result<T, any Error>) -> Bool {
        let taken = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        taken?.resume(with: result)
        return taken != nil
    }
}

/// An operation given up at its deadline: the database did not answer in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let operation: String
    let timeout: Duration

    var description: String { "\(operation) did not finish within \(timeout)" }
}
