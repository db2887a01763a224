import Synchronization
import VouchStore

/// Runs `body` and returns its result, or throws `StoreError.unavailable` once `timeout` has
/// passed, whichever comes first, even if `body` does not react to cancellation (a lease waiting
/// for a server that is down, a read on a connection nobody answers).
///
/// On timeout `body` is cancelled and left to finish on its own; whatever it then does is not
/// acknowledged to anyone. This is what bounds every request's wait on the database.
func withDeadline<T: Sendable>(
    _ timeout: Duration, operation: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let pending = Mutex<CheckedContinuation<T, any Error>?>(nil)
    /// Resumes the caller once; returns whether this call was the one that did.
    let finish: @Sendable (Result<T, any Error>) -> Bool = { result in
        let continuation = pending.withLock { state -> CheckedContinuation<T, any Error>? in
            defer { state = nil }
            return state
        }
        continuation?.resume(with: result)
        return continuation != nil
    }
    return try await withCheckedThrowingContinuation { continuation in
        pending.withLock { $0 = continuation }
        let timer = Task {
            do { try await Task.sleep(for: timeout) } catch { return false }
            return finish(.failure(StoreError.unavailable("\(operation) did not finish within \(timeout)")))
        }
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            if finish(result) { timer.cancel() }
        }
        Task {
            if await timer.value { work.cancel() }
        }
    }
}
