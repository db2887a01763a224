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

    @Test func anErrorOfTheOperationIsPassedOn() async throws {
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await withDeadline(seconds: 60) { () async throws -> String in throw Refused() } }
    }
}
