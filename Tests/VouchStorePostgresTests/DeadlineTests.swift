import Testing
import VouchStore
@testable import VouchStorePostgres

@Suite("withDeadline")
struct DeadlineTests {
    @Test("a body that finishes in time returns its value; a throw is passed on")
    func inTime() async throws {
        #expect(try await withDeadline(.seconds(30), operation: "fast") { 42 } == 42)
        await #expect(throws: StoreError.notFound) {
            try await withDeadline(.seconds(30), operation: "throws") { () async throws -> Int in throw StoreError.notFound }
        }
    }

    @Test("a body that ignores cancellation still gives way at the deadline, as unavailable")
    func late() async throws {
        let started = ContinuousClock.now
        do {
            _ = try await withDeadline(.milliseconds(200), operation: "stuck") { () async -> Int in
                // Deaf to cancellation, like a read nobody answers: a detached task is not
                // cancelled with its awaiter, and it sleeps rather than spins.
                await Task.detached { try? await Task.sleep(for: .seconds(30)); return 1 }.value
            }
            Issue.record("the stuck body's value arrived instead of the deadline")
        } catch let error as StoreError {
            guard case .unavailable(let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("stuck"))
        }
        // Far below the body's 30 s: the caller was not kept waiting for it.
        #expect(ContinuousClock.now - started < .seconds(15))
    }
}
