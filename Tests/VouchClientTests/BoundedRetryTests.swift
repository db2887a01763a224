import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// What the peers' users were bitten by: retries that outlive a sign-out, refresh storms while
/// offline, rate limits ignored.
@Suite struct BoundedRetryTests {
    @Test func aRetryWaitingForItsBackoffEndsWithDeauthentication() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            // A backoff far longer than the test's deadline: only cancellation can end the wait.
            let client = try await bed.aliceRevoked(
                backend,
                retryPolicy: RetryPolicy(
                    maximumAttempts: 3, initialDelaySeconds: 3_600, maximumDelaySeconds: 3_600))
            backend.become(.fail)
            let request = Task { try await client.currentUserFromServer() }
            try await backend.calls(reach: 2).wait()  // the sign-in, then the first failed answer
            try await client.deauthenticate()
            let outcome = try await Deadline.run(seconds: 120) { await request.result }
            guard case .failure(let error as VouchClientError) = outcome, error == .superseded else {
                Issue.record("the waiting retry ended with \(outcome)")
                return
            }
            #expect(backend.callCount == 2)
            #expect(try await client.authenticatedUser() == nil)
        }
    }

    @Test func anOfflineChallengeAnswerIsOneBoundedRefreshForTwentyRequests() async throws {
        try await TestBed.run { bed in
            let proxy = try FaultProxy(upstreamPort: bed.serverURL.port ?? 0)
            defer { proxy.stop() }
            let backend = bed.backend()
            let client = try bed.client(backend: backend, serverURL: proxy.url)
            try await client.connect(userID: "alice")
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            let entered = Latch(), gate = Latch()
            backend.become(.gated(entered: entered, gate: gate))

            // The first request is challenged; its answer is held in the provider while the
            // network goes away and nineteen more requests arrive.
            let first = Task { () async -> Result<CurrentUser, VouchClientError> in
                do throws(VouchClientError) { return .success(try await client.currentUserFromServer()) } catch { return .failure(error) }
            }
            try await entered.wait()
            proxy.setOffline(true)
            let before = proxy.connectionCount
            let others = Task {
                await withTaskGroup(of: Result<CurrentUser, VouchClientError>.self) { group in
                    for _ in 0..<19 {
                        group.addTask {
                            do throws(VouchClientError) { return .success(try await client.currentUserFromServer()) } catch { return .failure(error) }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            gate.open()
            let results = try await Deadline.run(seconds: 120) { [await first.value] + (await others.value) }
            #expect(results.count == 20)
            for result in results {
                guard case .failure(let error) = result else {
                    Issue.record("a request succeeded offline")
                    continue
                }
                switch error.kind {
                case .network, .challengeUnanswered, .notAuthenticated: break
                default: Issue.record("unexpected \(error)")
                }
            }
            // One refresh of at most three attempts, each at most one request (and a reconnect).
            #expect(proxy.connectionCount - before <= 6)
            #expect(backend.callCount == 2)
        }
    }

    @Test func anUnavailableServerIsATypedErrorAndABoundedRetry() async throws {
        try await TestBed.run { bed in
            let proxy = try FaultProxy(upstreamPort: bed.serverURL.port ?? 0)
            defer { proxy.stop() }
            let backend = bed.backend()
            let client = try bed.client(backend: backend, serverURL: proxy.url)
            proxy.setUnavailable(true)
            await #expect(throws: VouchClientError.serverUnavailable(status: 503)) { try await client.requestAuthenticationNonce() }
            let before = proxy.connectionCount
            await #expect(throws: VouchClientError.serverUnavailable(status: 503)) { try await client.connect(userID: "alice") }
            // Three attempts (the policy's cap), each one nonce request; the provider is never asked.
            #expect((1...3).contains(proxy.connectionCount - before))
            #expect(backend.callCount == 0)
            proxy.setUnavailable(false)
            #expect(try await client.connect(userID: "alice").userID == "alice")
        }
    }

    @Test func aRateLimitIsATypedErrorWithRetryAfter() async throws {
        try await TestBed.run(rateLimit: 1) { bed in
            let client = try bed.client()
            var limited: VouchClientError?
            for _ in 0..<50 where limited == nil {
                do throws(VouchClientError) {
                    _ = try await client.requestAuthenticationNonce()
                } catch {
                    limited = error
                }
            }
            guard let limited, limited.kind == .rateLimited, case let retryAfter = limited.retryAfterSeconds else {
                Issue.record("never limited: \(String(describing: limited))")
                return
            }
            #expect((retryAfter ?? 0) >= 1)
        }
    }
}

/// Waits for `operation`, failing the test after a generous deadline instead of hanging it.
enum Deadline {
    static func run<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { await operation() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw TestFailure("no result within \(seconds) s") }
            return first
        }
    }
}
