import Testing
@testable import VouchStoreSQLite

@Suite("AsyncLock", .timeLimit(.minutes(1)))
struct AsyncLockTests {
    actor Log {
        private(set) var entries: [String] = []
        func append(_ entry: String) { entries.append(entry) }
    }

    @Test("holders never overlap, even across suspension points")
    func mutualExclusion() async {
        let lock = AsyncLock()
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await lock.withLock {
                        await log.append("enter")
                        await Task.yield()
                        try? await Task.sleep(for: .milliseconds(1))
                        await log.append("exit")
                    }
                }
            }
        }
        #expect(await log.entries == Array(repeating: ["enter", "exit"], count: 20).flatMap { $0 })
    }

    @Test("waiters are admitted in arrival order")
    func fifo() async {
        let lock = AsyncLock()
        let log = Log()
        await lock.lock()
        var tasks: [Task<Void, Never>] = []
        for index in 0..<10 {
            tasks.append(Task { await lock.withLock { await log.append("\(index)") } })
            // Start the next waiter only once this one is queued.
            guard await eventually({ await lock.waitingCount == index + 1 }) else {
                Issue.record("waiter \(index) was never queued behind the holder")
                break
            }
        }
        await lock.unlock()
        for task in tasks { await task.value }
        #expect(await log.entries == (0..<10).map { "\($0)" })
    }

    @Test("a throwing body releases the lock")
    func throwingBodyReleases() async throws {
        struct Boom: Error {}
        let lock = AsyncLock()
        await #expect(throws: Boom.self) { try await lock.withLock { throw Boom() } }
        #expect(await lock.withLock { 42 } == 42)
    }
}

/// Polls `condition` until it holds or five seconds pass, so a broken lock fails the test
/// instead of hanging it.
func eventually(_ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return await condition()
}
