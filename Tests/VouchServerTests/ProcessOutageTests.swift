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
    .timeLimit(.minutes(3))
)
struct ProcessOutageTests {
    @Test("database stopped: /health and sign-ins answer 503 service_unavailable within the timeout; restarted: it recovers alone")
    func outageAndRecovery() async throws {
        try await ProcessScratch.with { scratch in
            // Below the ephemeral range: the cluster is stopped and started again on this port,
            // and meanwhile no outgoing connection of another test can be given it.
            let port = try await ProcessHarness.unusedFixedPort()
            let cluster = try await ThrowawayCluster.start(port: port)
            do {
                try await run(scratch, cluster)
            } catch {
                await cluster.destroy()
                throw error
            }
            await cluster.destroy()
        }
    }

    private func run(_ scratch: ProcessScratch, _ cluster: ThrowawayCluster) async throws {
        let timeout = 3
        let server = try await scratch.startServer(
            arguments: ["--database", cluster.url, "--database-timeout", "\(timeout)", "--rate-limit", "0"],
            adminToken: "outage-admin-token-0123456789abcdef")
        let (app, provider) = try await server.makeAppAndProvider()
        let (key, pem) = try await server.generateKey(provider: provider)
        let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
        let before = try await server.signIn(try minter.mint(userID: "dave", nonce: try await server.nonce()), app: app)
        let session = try #require(before.json["session_token"].string, "\(before)")

        try await cluster.stop()
        // What matters is that it is bounded, not a hang. Alone this test's answers come at the
        // 3 s deadline; under the whole suite on two cores one came after 16.2 s (and 18.5 s with
        // more load), so the bound is ten deadlines, far below the test's own 3 minutes.
        let bound: Duration = .seconds(timeout * 10)
        let nonce = try await server.nonce()   // stateless: needs no database
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
            await cluster.destroy()   // a cluster that did not start leaves no directory behind
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
