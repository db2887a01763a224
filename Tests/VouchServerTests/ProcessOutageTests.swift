import Foundation
import NIOHTTP1
import Testing
import VouchStorePostgres
import VouchPostgresTestSupport
import VouchTestSupport
import VouchTokens

/// The database goes away under a running `vouch serve` and comes back: requests fail fast with
/// 503 meanwhile, and the server recovers by itself. Runs on a PostgreSQL cluster of its own
/// (scripts/pg-cluster.sh), so stopping it disturbs no other test.
@Suite(
    "vouch serve through a PostgreSQL outage",
    .serialized,
    .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5))
)
struct ProcessOutageTests {
    @Test("database stopped: /health and sign-ins answer 503 service_unavailable within the timeout; restarted: it recovers alone")
    func outageAndRecovery() async throws {
        try await Self.withCluster(run)
    }

    @Test("database stopped: once the store has seen it gone, /health and /users/me answer 503 at once; back: served within seconds")
    func failFastAndRecoverPromptly() async throws {
        try await Self.withCluster(failFast)
    }

    /// `body` with a scratch directory and a PostgreSQL cluster of its own, destroyed afterwards.
    private static func withCluster(_ body: (ProcessScratch, ThrowawayCluster) async throws -> Void) async throws {
        try await ProcessScratch.with { scratch in
            // Below the ephemeral range: the cluster is stopped and started again on this port,
            // and meanwhile no outgoing connection of another test can be given it.
            let port = try await ProcessHarness.unusedFixedPort()
            let cluster = try await ThrowawayCluster.start(port: port)
            do {
                try await body(scratch, cluster)
            } catch {
                await cluster.destroy()
                throw error
            }
            await cluster.destroy()
        }
    }

    /// A `vouch serve` on `cluster` with an app, a provider and its key, and `user` signed in.
    private static func signedIn(
        _ scratch: ProcessScratch, _ cluster: ThrowawayCluster, timeout: Int,
        user: String
    ) async throws -> SignedIn {
        let server = try await scratch.startServer(
            arguments: ["--database", cluster.url, "--database-timeout", "\(timeout)", "--rate-limit", "0"],
            adminToken: "outage-admin-token-0123456789abcdef")
        let (app, provider) = try await server.makeAppAndProvider()
        let (key, pem) = try await server.generateKey(provider: provider)
        let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
        let answer = try await server.signIn(try minter.mint(userID: user, nonce: try await server.nonce()), app: app)
        let session = try #require(answer.json["session_token"].string, "\(answer)")
        return SignedIn(server: server, app: app, minter: minter, session: session)
    }

    private struct SignedIn {
        let server: ProcessServer
        let app: String
        let minter: LayerTokenMinter
        let session: String
    }

    private func failFast(_ scratch: ProcessScratch, _ cluster: ThrowawayCluster) async throws {
        let timeout = 8
        let signedIn = try await Self.signedIn(scratch, cluster, timeout: timeout, user: "fay")
        let (server, session) = (signedIn.server, signedIn.session)

        try await cluster.stop()
        // The first request may wait out the timeout: until an operation fails, nothing tells the
        // store the database is gone.
        let first = try await server.request(.GET, "/health")
        #expect(first.status == 503, "\(first)")
        // From then on every answer is at once. Half the timeout leaves a loaded machine its margin
        // and still tells "at once" from "after the timeout".
        let quick: Duration = .seconds(timeout) / 2
        func timed(_ request: () async throws -> ProcessHTTPResponse) async throws -> (ProcessHTTPResponse, Duration) {
            let started = ContinuousClock.now
            let answer = try await request()
            return (answer, ContinuousClock.now - started)
        }
        for round in 0..<6 {
            let (health, took) = try await timed { try await server.request(.GET, "/health") }
            #expect(health.status == 503 && health.json["id"].string == "service_unavailable", "round \(round): \(health)")
            #expect(took < quick, "round \(round): /health took \(took)")
        }
        let (me, meTook) = try await timed { try await server.me(session) }
        #expect(me.status == 503 && me.json["id"].string == "service_unavailable", "\(me)")
        #expect(meTook < quick, "/users/me took \(meTook)")
        // A burst waits no longer than one request: no request waits for the database to answer.
        // Sixteen: the test client's connections to one host (more would wait for one of those).
        let (_, burstTook) = try await timed {
            try await withThrowingTaskGroup(of: ProcessHTTPResponse.self) { group in
                for _ in 0..<16 { group.addTask { try await server.request(.GET, "/health") } }
                var last: ProcessHTTPResponse?
                for try await answer in group {
                    #expect(answer.status == 503, "\(answer)")
                    last = answer
                }
                return try #require(last)
            }
        }
        #expect(burstTook < quick, "sixteen concurrent /health took \(burstTook)")

        // A longer outage: PostgresNIO's pool backs off between reconnection attempts (by a
        // quarter of the outage so far), which must not delay the recovery.
        try await Task.sleep(for: .seconds(20))
        try await cluster.start()
        let back = ContinuousClock.now
        let recovered = await ProcessWait.eventuallyAsync(timeout: .seconds(30)) {
            (try? await server.request(.GET, "/health"))?.status == 200
        }
        let tookToRecover = ContinuousClock.now - back
        #expect(recovered, "the server did not recover after the database came back")
        // Within a second on a quiet machine (a probe every 250 ms); three leave a loaded one room.
        #expect(tookToRecover < .seconds(3), "recovery took \(tookToRecover) after the database was back")
        #expect(try await server.me(session).status == 200)
        try await server.child.stop()
    }

    private func run(_ scratch: ProcessScratch, _ cluster: ThrowawayCluster) async throws {
        let timeout = 3
        let signedIn = try await Self.signedIn(scratch, cluster, timeout: timeout, user: "dave")
        let (server, app, minter, session) = (signedIn.server, signedIn.app, signedIn.minter, signedIn.session)

        try await cluster.stop()
        // What matters is that it is bounded, not a hang. Alone this test's answers come at the
        // 3 s deadline; under the whole suite on two cores one came after 16.2 s (and 18.5 s with
        // more load), so the bound is ten deadlines, far below the test's own 3 minutes.
        let bound: Duration = .seconds(timeout * 10)
        let nonce = try await server.nonce()  // stateless: needs no database
        for _ in 0..<3 {
            let started = ContinuousClock.now
            let health = try await server.request(.GET, "/health")
            #expect(health.status == 503, "\(health)")
            #expect(health.json["id"].string == "service_unavailable")
            #expect(ContinuousClock.now - started < bound)
        }
        let started = ContinuousClock.now
        let during = try await server.signIn(try minter.mint(userID: "erin", nonce: nonce), app: app)
        #expect(during.status == 503, "\(during)")
        #expect(during.json["id"].string == "service_unavailable")
        #expect(ContinuousClock.now - started < bound)
        // What an operator alerts on (docs/OPERATIONS.md): the store's failures by kind.
        let metrics = try await server.request(.GET, "/metrics").text
        #expect(metrics.contains(#"vouch_store_errors_total{operation="ping",kind="unavailable"} 3"#), "\(metrics)")

        try await cluster.start()
        let recovered = await ProcessWait.eventuallyAsync(timeout: .seconds(30)) {
            (try? await server.request(.GET, "/health"))?.status == 200
        }
        #expect(recovered, "the server did not recover after the database came back")
        // Nothing acknowledged was lost, and the nonce refused during the outage is still good.
        #expect(try await server.me(session).status == 200)
        let after = try await server.signIn(try minter.mint(userID: "erin", nonce: nonce), app: app)
        #expect(after.status == 201, "\(after)")
        try await server.child.stop()
    }
}

/// A PostgreSQL cluster of one test, made and removed with scripts/pg-cluster.sh.
struct ThrowawayCluster: Sendable {
    let directory: String
    let port: Int
    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable" }

    static let script = ProcessHarness.packageRoot.appendingPathComponent("scripts/pg-cluster.sh").path

    static func start(port: Int) async throws -> ThrowawayCluster {
        // Under /tmp: as root the cluster belongs to the postgres user, who must reach it.
        let directory = "/tmp/vouch-outage-\(UUID().uuidString.lowercased())"
        let cluster = ThrowawayCluster(directory: directory, port: port)
        do {
            try await cluster.script(["init", directory, "\(port)"])
        } catch {
            await cluster.destroy()  // a cluster that did not start leaves no directory behind
            throw error
        }
        return cluster
    }

    func stop() async throws { try await script(["stop", directory]) }
    func start() async throws { try await script(["start", directory, "\(port)"]) }
    func destroy() async { try? await script(["destroy", directory]) }

    private func script(_ arguments: [String]) async throws {
        let ran = try await ChildProcess.run(executable: "/bin/bash", arguments: [Self.script] + arguments, timeout: .seconds(90))
        guard ran.termination == .exited(0) else {
            throw ProcessHarnessError("pg-cluster.sh \(arguments.joined(separator: " ")) failed (\(ran.termination)): \(ran.stderr)")
        }
    }
}
