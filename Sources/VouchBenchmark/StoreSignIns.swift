import Foundation
import Logging
import VouchProtocol
import VouchServer
import VouchStore
import VouchStoreSQLite

/// The sign-in's durable write alone: `createSession` on a real SQLite file with
/// `synchronous=FULL` and the server's group gathering, from many tasks at once, with no HTTP, no
/// token and no RSA in the way. Over HTTP the writer's share of a sign-in is a few tens of
/// microseconds inside a total that moves by ±15 from run to run; here it is most of what the
/// process does, so a change to the store can be measured, and profiled, by itself.
///
/// Each session is shaped like a real one: its key leads with the microsecond it was made
/// (`SessionToken`); its nonce's hash is random and expires ten minutes after the second it is
/// used in (as if issued just before); and its users return (`users` of them, each signing in
/// again with the same claims, as the HTTP benchmark's tokens do).
struct StoreSignIns {
    let sessions: Int
    let concurrency: Int
    let users: Int

    func run() async throws {
        var logger = Logger(label: "vouch.benchmark.store")
        logger.logLevel = .warning
        let (elapsed, before, after, userWide) = try await ScratchStore.with(logger: logger) { store in
            let now = Int64(Date().timeIntervalSince1970)
            let app = AppRecord(id: UUID(), name: "Benchmark", sessionTTLSeconds: 3600, createdAt: now)
            try await store.createApp(app)
            // Every user's first sign-in, so that the measured ones are returning users.
            try await signIns(count: users, into: store, app: app.id, now: now)
            let before = ThreadCPU.sample()
            let started = ContinuousClock.now
            try await signIns(count: sessions, into: store, app: app.id, now: now)
            let (elapsed, after) = (ContinuousClock.now - started, ThreadCPU.sample())
            return (elapsed, before, after, try await userWideOperations(in: store, app: app.id, now: now))
        }

        let seconds = elapsed.inSeconds
        print(
            String(
                format: "store sign-ins: %d in %.2f s, %.0f/s, %d tasks, %d returning users",
                sessions, seconds, Double(sessions) / seconds, concurrency, users))
        for line in ThreadCPU.lines(from: before, to: after, per: sessions) { print("  " + line) }
        print("  " + userWide)
    }

    /// What the user-wide operations cost beside so many live sessions: they find a user's
    /// sessions through the expiry index, reading every live session's entry
    /// (`UserSessionStatements`). Measured once each, after the sign-ins and outside their figures.
    private func userWideOperations(in store: SQLiteStore, app: UUID, now: Int64) async throws -> String {
        let started = ContinuousClock.now
        let live = try await store.activeSessionCount(appID: app, userID: "user-0", now: now)
        let counted = ContinuousClock.now - started
        let ended = try await store.revokeSessions(appID: app, userID: "user-0", now: now)
        let revoked = ContinuousClock.now - started - counted
        // A cutoff of the whole app: one row moved, and its live sessions counted.
        let cutStarted = ContinuousClock.now
        let cut = try await store.cutOff(.app(app), reason: nil, now: now)
        let cutoff = ContinuousClock.now - cutStarted
        return String(
            format: "one user's sessions among %d live: %d counted in %.1f ms, %d ended in %.1f ms; "
                + "the app cut off (%d sessions ended) in %.1f ms",
            users + sessions, live, counted.inSeconds * 1e3, ended, revoked.inSeconds * 1e3, cut.sessionsEnded,
            cutoff.inSeconds * 1e3)
    }

    /// `count` sign-ins, shared among `concurrency` tasks, each waiting for its commit.
    private func signIns(count: Int, into store: SQLiteStore, app: UUID, now: Int64) async throws {
        let next = NextIndex(below: count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while let index = next.take() {
                        _ = try await store.createSession(session(index: index, app: app, now: now))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    private func session(index: Int, app: UUID, now: Int64) -> NewSession {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        let stamp = UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec / 1000)
        var key = withUnsafeBytes(of: stamp.bigEndian) { Array($0) }
        key += SecureRandom.bytes(32)
        return NewSession(
            tokenHash: key, appID: app, userID: "user-\(index % users)",
            profile: IdentityProfile(displayName: "User \(index % users)"),
            createdAt: now, expiresAt: now + 3600,
            nonce: .serverNonce(hash: SecureRandom.bytes(32), expiresAt: Int64(spec.tv_sec) + 600))
    }
}
