import Testing
@testable import VouchClient
import VouchTestSupport

/// The provider timeout: one answer, exactly once, even from an operation that ignores cancellation.
@Suite struct DeadlineTests {
    @Test func theResultComesBackWhenItIsInTime() async throws {
        #expect(try await withDeadline(seconds: 60) { "token" } == "token")
    }

    @Test func anOperationThatIgnoresCancellationIsAbandonedAtTheDeadline() async throws {
        let never = Latch()
        defer { never.open() }
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(seconds: 0.2) {
                await never.waitIgnoringCancellation()
                return "late"
            }
        }
    }

    @Test func cancellingTheCallerEndsTheWaitAtOnce() async throws {
        let never = Latch(), started = Latch()
        defer { never.open() }
        let waiting = Task {
            try await withDeadline(seconds: 3_600) {
                started.open()
                await never.waitIgnoringCancellation()
                return "late"
            }
        }
        try await started.wait()
        waiting.cancel()
        let outcome = try await Deadline.run(seconds: 120) { await waiting.result }
        guard case .failure(let error) = outcome else {
            Issue.record("a cancelled wait returned \(outcome)")
            return
        }
        #expect(error is CancellationError)
    }

    /// FoundationNetworking can crash when a URLSession task is cancelled, so on Linux a provider
    /// that timed out is left to finish; elsewhere it is cancelled.
    @Test func anAbandonedOperationIsCancelledExceptWithFoundationNetworking() async throws {
        let never = Latch()
        defer { never.open() }
        let cancelled = Shared(false)
        await #expect(throws: DeadlineExceeded.self) {
            try await withDeadline(seconds: 0.1) {
                await withTaskCancellationHandler {
                    await never.waitIgnoringCancellation()
                } onCancel: {
                    cancelled.set(true)
                }
                return "late"
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        #if canImport(FoundationNetworking)
            #expect(!cancelled.value)
        #else
            #expect(cancelled.value)
        #endif
    }

    @Test func anErrorOfTheOperationIsPassedOn() async throws {
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await withDeadline(seconds: 60) { () async throws -> String in throw Refused() } }
    }
}
