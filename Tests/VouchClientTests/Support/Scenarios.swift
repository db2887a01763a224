import Foundation
import VouchClient
import VouchTestSupport

/// Situations several tests start from.
extension TestBed {
    /// A client with `backend` as its provider, "alice" signed in, and her sessions then revoked on
    /// the server behind the client's back: the next request will be challenged.
    ///
    /// Alice signs in through a client with the default provider timeout (a short one would make
    /// the sign-in depend on the machine's speed); the client returned is a second instance on the
    /// same storage, configured as asked, that resumes her session.
    func aliceRevoked(
        _ backend: Backend, providerTimeout: Double = 30,
        retryPolicy: RetryPolicy = RetryPolicy(maximumAttempts: 3, initialDelaySeconds: 0.05, maximumDelaySeconds: 0.2)
    ) async throws -> VouchClient {
        try await client(backend: backend).connect(userID: "alice")
        try await admin.revokeSessions(of: "alice", appID: appID)
        let resumed = try client(backend: backend, providerTimeout: providerTimeout, retryPolicy: retryPolicy)
        guard try await resumed.authenticatedUser()?.userID == "alice" else { throw TestFailure("alice's session was not resumed") }
        return resumed
    }

    /// A request on alice's revoked session whose challenge answer is held inside the provider
    /// until `gate` opens: a refresh in flight, for the racing tests.
    struct RefreshInFlight {
        let request: Task<CurrentUser, any Error>
        let gate: Latch
    }

    func refreshInFlight(_ client: VouchClient, _ backend: Backend) async throws -> RefreshInFlight {
        let entered = Latch(), gate = Latch()
        backend.become(.gated(entered: entered, gate: gate))
        let request = Task { try await client.currentUserFromServer() }
        try await entered.wait()
        return RefreshInFlight(request: request, gate: gate)
    }
}

/// `count` copies of `operation` at once; their results in completion order.
func concurrently<T: Sendable>(_ count: Int, _ operation: @escaping @Sendable () async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: T.self) { group in
        for _ in 0..<count { group.addTask { try await operation() } }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
