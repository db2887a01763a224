/// A first-in, first-out mutual-exclusion lock for async code.
///
/// An actor alone does not serialise multi-step work: an actor method that awaits lets other calls
/// in (reentrancy), so two transactions on one SQLite connection could interleave their statements.
/// The holder of this lock keeps it across suspension points, and waiters are admitted in arrival
/// order, so a burst of sign-ins cannot starve an admin request.
///
/// Waiting is not cancellable: a waiter is always admitted eventually, because every holder
/// releases in all paths of ``withLock(isolation:_:)``.
actor AsyncLock {
    private var isLocked = false
    /// Suspended waiters, oldest first. Ownership passes straight to the first one on unlock, so a
    /// newcomer can never barge ahead of the queue.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init() {}

    /// How many tasks are waiting (not counting the holder); for tests of the FIFO order.
    var waitingCount: Int { waiters.count }

    func lock() async {
        guard isLocked else {
            isLocked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func unlock() {
        assert(isLocked, "AsyncLock unlocked while not locked")
        if waiters.isEmpty {
            isLocked = false
        } else {
            waiters.removeFirst().resume()
        }
    }

    /// Runs `body` while holding the lock, and releases it whether `body` returns or throws.
    func withLock<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        await lock()
        do {
            let value = try await body()
            await unlock()
            return value
        } catch {
            await unlock()
            throw error
        }
    }
}
