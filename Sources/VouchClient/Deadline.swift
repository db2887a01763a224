import Foundation
import Synchronization
import VouchProtocol

/// Runs `operation`, giving up after `seconds` even if the operation ignores cancellation (an
/// app's provider may wait on anything); its late result is dropped. On Apple platforms the
/// operation is also cancelled then. With FoundationNetworking (Linux) it is not: a provider's
/// URLSession call that is cancelled can crash the process there, so it runs to its own end.
func withDeadline<T: Sendable>(
    seconds: Double,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = DeadlineOutcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.install(continuation)
            let work = Task {
                do { outcome.finish(.success(try await operation())) } catch { outcome.finish(.failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(for: .seconds(seconds))
                outcome.finish(.failure(DeadlineExceeded()))
            }
            outcome.onFinish {
                timer.cancel()
                #if canImport(FoundationNetworking)
                    _ = work
                #else
                    work.cancel()
                #endif
            }
        }
    } onCancel: {
        outcome.finish(.failure(CancellationError()))
    }
}

struct DeadlineExceeded: Error {}

/// Resumes the continuation exactly once, whichever of result, timer or cancellation comes first.
private final class DeadlineOutcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var cleanup: (@Sendable () -> Void)?
        var done = false
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock {
            if let early = $0.early { return early }
            $0.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock {
            if $0.done { return true }
            $0.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, cleanup) = state.withLock { state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            guard !state.done else { return (nil, nil) }
            state.done = true
            if state.continuation == nil { state.early = result }
            defer {
                state.continuation = nil
                state.cleanup = nil
            }
            return (state.continuation, state.cleanup)
        }
        continuation?.resume(with: result)
        cleanup?()
    }
}
