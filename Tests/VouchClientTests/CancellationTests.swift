import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// Issue 39, defect 4: a cancelled caller of `connect`/`start` returns at once, and a sign-in
/// nobody waits for stops asking the app's backend.
@Suite struct CancellationTests {
    @Test(arguments: [false, true])
    func aCancelledSignInReturnsAtOnceAndAsksTheBackendNoMore(registration: Bool) async throws {
        try await TestBed.run { bed in
            let backend = bed.backend(.hang)
            defer { backend.releaseHangs() }
            // A long provider timeout and several attempts: without the cancellation the call
            // would wait them out and ask the backend again.
            let client = try bed.client(
                backend: backend, providerTimeout: 30,
                retryPolicy: RetryPolicy(maximumAttempts: 3, initialDelaySeconds: 0.05, maximumDelaySeconds: 0.1))
            let signIn = Task {
                if registration { try await client.start(userID: "alice") } else { try await client.connect(userID: "alice") }
            }
            try await backend.calls(reach: 1).wait()
            let cancelled = ContinuousClock.now
            signIn.cancel()
            let outcome = await signIn.result
            #expect(ContinuousClock.now - cancelled < .seconds(20), "returned at once, not after the 30 s provider timeout")
            guard case .failure(let error) = outcome, let error = error as? VouchClientError else {
                Issue.record("a cancelled sign-in returned \(outcome)")
                return
            }
            #expect(error.kind == .cancelled)
            // The flight was cancelled with its last waiter: no further attempt reaches the backend.
            backend.releaseHangs()
            try await Task.sleep(for: .milliseconds(500))
            #expect(backend.callCount == 1)
            #expect(try await client.authenticatedUser() == nil)
            #expect(client.currentState == .signedOut)
        }
    }

    @Test func oneCancelledWaiterLeavesTheSignInToTheOthers() async throws {
        try await TestBed.run { bed in
            let entered = Latch(), gate = Latch()
            let backend = bed.backend(.gated(entered: entered, gate: gate))
            let client = try bed.client(backend: backend)
            let leaving = Task { try await client.connect(userID: "alice") }
            let staying = Task { try await client.connect(userID: "alice") }
            try await entered.wait()
            leaving.cancel()
            await #expect(throws: VouchClientError.cancelled) { try await leaving.value }
            gate.open()
            #expect(try await staying.value.userID == "alice")
            #expect(backend.callCount == 1)
        }
    }
}
