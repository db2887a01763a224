import Synchronization
import Testing
import VouchStore
@testable import VouchStorePostgres
import VouchTestSupport

@Suite("DeadlineWatch")
struct DeadlineTests {
    @Test("a body that finishes in time returns its value; a throw is passed on; nothing stays registered")
    func inTime() async throws {
        try await Self.withWatcher(resolution: .milliseconds(10)) { watch in
            #expect(try await watch.run(.seconds(30), operation: "fast") { 42 } == 42)
            await #expect(throws: StoreError.notFound) {
                try await watch.run(.seconds(30), operation: "throws") { () async throws -> Int in throw StoreError.notFound }
            }
            // Many at once, each answered with its own value.
            let values = try await withThrowingTaskGroup(of: Int.self) { group in
                for value in 0..<200 { group.addTask { try await watch.run(.seconds(30), operation: "many") { value } } }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
            #expect(values == Set(0..<200))
            #expect(watch.registeredCount == 0)
        }
    }

    @Test("a body that ignores cancellation still gives way at the deadline, as DeadlineExceeded, and is cancelled")
    func late() async throws {
        try await Self.withWatcher(resolution: .milliseconds(20)) { watch in
            let cancelled = Atomic<Bool>(false)
            let started = ContinuousClock.now
            do {
                _ = try await watch.run(.milliseconds(200), operation: "stuck") { () async -> Int in
                    // Deaf to cancellation, like a read nobody answers: a detached task is not
                    // cancelled with its awaiter, and it sleeps rather than spins.
                    await withTaskCancellationHandler {
                        await Task.detached {
                            try? await Task.sleep(for: .seconds(120))
                            return 1
                        }.value
                    } onCancel: {
                        cancelled.store(true, ordering: .relaxed)
                    }
                }
                Issue.record("the stuck body's value arrived instead of the deadline")
            } catch let error as DeadlineExceeded {
                #expect(error.operation == "stuck")
                // The store reports it as its database being unavailable.
                let reported = StoreError.from(postgres: error) as? StoreError
                guard let reported, reported.kind == .unavailable, let reason = reported.detail else {
                    Issue.record("\(error)")
                    return
                }
                #expect(reason.contains("stuck"))
            }
            let waited = ContinuousClock.now - started
            // Not before the deadline, and far below the body's 120 s: the caller was not kept
            // waiting (a whole test run on two cores can hold a task up for seconds, never minutes).
            #expect(waited >= .milliseconds(200))
            #expect(waited < .seconds(60))
            let wasCancelled = cancelled.load(ordering: .relaxed)
            #expect(wasCancelled, "the abandoned body is told to stop")
            #expect(watch.registeredCount == 0)
        }
    }

    @Test("only overdue operations are given up, each once")
    func overdueOnly() async throws {
        // A resolution far beyond the test: only the explicit look below gives anything up.
        let watch = DeadlineWatch(resolution: .seconds(3_600))
        defer { watch.stop() }
        let gate = Latch()
        let short = Task {
            try await watch.run(.milliseconds(1), operation: "short") {
                await gate.waitIgnoringCancellation()
                return 1
            }
        }
        let long = Task {
            try await watch.run(.seconds(3_600), operation: "long") {
                await gate.waitIgnoringCancellation()
                return 2
            }
        }
        while watch.registeredCount < 2 { await Task.yield() }
        try await Task.sleep(for: .milliseconds(5))
        watch.expireOverdue(at: .now)
        watch.expireOverdue(at: .now)
        await #expect(throws: DeadlineExceeded.self) { try await short.value }
        #expect(watch.registeredCount == 1)
        gate.open()
        #expect(try await long.value == 2)
        #expect(watch.registeredCount == 0)
    }

    @Test(
        "stopping, or cancelling the watcher, gives up what is still running and refuses what comes after",
        arguments: [false, true])
    func stop(byCancellingTheWatcher: Bool) async throws {
        let watch = DeadlineWatch(resolution: .seconds(3_600))
        let watcher = Task { await watch.watch() }
        let gate = Latch()
        let running = Task {
            try await watch.run(.seconds(3_600), operation: "running") {
                await gate.waitIgnoringCancellation()
                return 1
            }
        }
        while watch.registeredCount < 1 { await Task.yield() }
        if byCancellingTheWatcher {
            watcher.cancel()
            await watcher.value
        } else {
            watch.stop()
        }
        await #expect(throws: StoreError.unavailable("the store is closed")) { try await running.value }
        await #expect(throws: StoreError.unavailable("the store is closed")) {
            try await watch.run(.seconds(1), operation: "after") { 3 }
        }
        gate.open()
        #expect(watch.registeredCount == 0)
        // A stopped watcher ends within its resolution (here an hour); the test does not wait for it.
        watcher.cancel()
        await watcher.value
    }

    /// Runs `body` with a watch whose watcher runs beside it, as the store's scope runs it.
    static func withWatcher<T>(resolution: Duration, _ body: (DeadlineWatch) async throws -> T) async throws -> T {
        let watch = DeadlineWatch(resolution: resolution)
        return try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await watch.watch() }
            defer { watch.stop() }
            return try await body(watch)
        }
    }

    @Test("the resolution is a tenth of the timeout, between 10 and 100 ms")
    func resolution() {
        #expect(DeadlineWatch.resolution(for: .seconds(5)) == .milliseconds(100))
        #expect(DeadlineWatch.resolution(for: .milliseconds(500)) == .milliseconds(50))
        #expect(DeadlineWatch.resolution(for: .milliseconds(20)) == .milliseconds(10))
    }
}
