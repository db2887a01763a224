import Foundation
import NIOHTTP1
import Testing
import VouchPostgresTestSupport
import VouchTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Webhook deliveries from real `vouch serve` processes: an event survives kill -9 between its
/// commit and its delivery, and two instances on one PostgreSQL database deliver each event once,
/// in each user's order.
@Suite(
    "Webhook deliveries from vouch serve processes",
    .serialized,
    .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
    .timeLimit(.minutes(5))
)
struct ProcessWebhookTests {
    static let adminToken = "webhook-process-admin-token-0123456789abcdef"

    /// Registers an endpoint of `app` for `events` at `url`.
    static func subscribe(_ server: ProcessServer, app: String, url: String, events: [String]) async throws {
        try await server.admin(.POST, "/admin/apps/\(app)/webhooks", json: ["url": url, "events": events], expect: 201)
    }

    @Test("kill -9 between the commit and the delivery: the event is delivered after the restart, once, with its id")
    func survivesKill() async throws {
        try await ProcessScratch.with { scratch in
            let arguments = ["--allow-loopback-outbound", "--webhook-first-retry-seconds", "0.2", "--rate-limit", "0"]
            let server = try await scratch.startServer(arguments: arguments, adminToken: Self.adminToken)
            let (app, provider) = try await server.makeAppAndProvider()
            let (key, pem) = try await server.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
            // The receiver is not listening yet: whatever the worker managed before the kill,
            // nothing was delivered.
            let port = try await ProcessHarness.unusedFixedPort()
            try await Self.subscribe(server, app: app, url: "http://127.0.0.1:\(port)/ok", events: ["session.created"])
            let signedIn = try await server.signIn(try minter.mint(userID: "ada", nonce: try await server.nonce()), app: app)
            #expect(signedIn.status == 201, "\(signedIn)")
            let sessionID = try #require(signedIn.json["session_id"].string)
            server.child.killNow()
            #expect(try await server.child.waitForExit(timeout: .seconds(10)) == .signalled(SIGKILL))

            try await WebhookReceiver.run(port: port) { receiver in
                let restarted = try await scratch.startServer(arguments: arguments, adminToken: Self.adminToken)
                // At most the lease of an attempt the kill cut short (30 s), then at once.
                let arrived = await ProcessWait.eventually(timeout: .seconds(60)) { !receiver.received("/ok").isEmpty }
                #expect(arrived, "the event committed before kill -9 was never delivered")
                try await Task.sleep(for: .milliseconds(500))
                let deliveries = receiver.received("/ok")
                #expect(deliveries.count == 1, "\(deliveries.count) deliveries")
                let event = try #require(deliveries.first).json
                #expect(event["type"] as? String == "session.created" && event["user_id"] as? String == "ada")
                #expect((event["data"] as? [String: Any])?["session_id"] as? String == sessionID)
                #expect(deliveries.first?.eventID == event["id"] as? String)
                try await restarted.child.stop()
            }
        }
    }

    @Test(
        "two instances on one PostgreSQL database deliver each event once and each user's events in order",
        .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"))
    func twoInstancesShareTheOutbox() async throws {
        try await WebhookReceiver.run { receiver in
            try await PostgresTestDatabase.with { url in
                try await ProcessScratch.with { scratch in
                    let arguments = [
                        "--database", url.unredactedString, "--database-timeout", "60", "--allow-loopback-outbound",
                        "--rate-limit", "0",
                    ]
                    let a = try await scratch.startServer(dataDir: "a", arguments: arguments, adminToken: Self.adminToken)
                    let b = try await scratch.startServer(dataDir: "b", arguments: arguments, adminToken: Self.adminToken)
                    let (app, provider) = try await a.makeAppAndProvider()
                    let (key, pem) = try await a.generateKey(provider: provider)
                    let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
                    try await Self.subscribe(
                        a, app: app, url: receiver.url("/ok"), events: ["session.created", "session.ended"])

                    // Ten users, each signing in three times and signing one session out, through
                    // both instances at once: 40 events, written and delivered by either.
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for user in 0..<10 {
                            group.addTask {
                                for round in 0..<3 {
                                    let server = (user + round) % 2 == 0 ? a : b
                                    let answer = try await server.signIn(
                                        try minter.mint(userID: "user-\(user)", nonce: try await server.nonce()), app: app)
                                    guard answer.status == 201, let token = answer.json["session_token"].string else {
                                        throw ProcessHarnessError("sign-in answered \(answer)")
                                    }
                                    if round == 1 {
                                        let ended = try await (user % 2 == 0 ? b : a).request(.DELETE, "/sessions/\(token)")
                                        guard ended.status == 204 else { throw ProcessHarnessError("sign-out answered \(ended)") }
                                    }
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                    let arrived = await ProcessWait.eventually(timeout: .seconds(30)) { receiver.received("/ok").count >= 40 }
                    #expect(arrived, "\(receiver.received("/ok").count) of 40 events arrived")
                    try await Task.sleep(for: .milliseconds(500))
                    let deliveries = receiver.received("/ok")
                    let ids = deliveries.compactMap(\.eventID)
                    #expect(ids.count == 40 && Set(ids).count == 40, "\(ids.count) deliveries of \(Set(ids).count) events")
                    for user in 0..<10 {
                        let sequences = deliveries.compactMap { delivery -> Int? in
                            let event = delivery.json
                            return event["user_id"] as? String == "user-\(user)" ? event["sequence"] as? Int : nil
                        }
                        #expect(sequences == [1, 2, 3, 4], "user-\(user)'s events arrived as \(sequences)")
                    }
                    for server in [a, b] { try await server.child.stop() }
                }
            }
        }
    }
}
