import Foundation
import Testing
import VouchTestSupport

/// `vouch webhooks` and `vouch serve --allow-loopback-outbound`, against a real `vouch serve`.
@Suite("Admin CLI: webhook endpoints", .enabled(if: CLI.binaryExists || CLI.inCI, Comment(rawValue: CLI.binaryMissing)))
struct WebhooksCLITests {
    static let url = "https://93.184.215.14/vouch-events"

    @Test(
        "--help names what each command takes",
        arguments: [
            (["webhooks"], ["create", "list", "update", "delete", "deliveries", "replay", "Vouch-Signature", "session.ended"]),
            (["webhooks", "create"], ["--app <app>", "--url <url>", "--events <events>"]),
            (["webhooks", "update"], ["<id>", "--url <url>", "--events <events>", "--pause", "--resume"]),
            (["webhooks", "delete"], ["--app <app>", "<id>"]),
            (["webhooks", "deliveries"], ["--app <app>", "<id>", "--limit <limit>"]),
            (["webhooks", "replay"], ["--app <app>", "<id>", "<event>"]),
            (["serve"], ["--allow-loopback-outbound", "--webhook-first-retry-seconds"]),
        ])
    func help(command: [String], mentions: [String]) async throws {
        let result = try await CLI.vouch(command + ["--help"])
        #expect(result.succeeded, "\(command): \(result)")
        for text in mentions { #expect(result.stdout.contains(text), "\(command) --help names \(text): \(result.stdout)") }
    }

    @Test("create prints the secret once; list never shows it; update pauses, resumes and changes; delete; refusals are clear")
    func lifecycle() async throws {
        try await SpawnedServer.run { server in
            let made = try await server.admin(["apps", "create", "--name", "Chat", "--json"])
            let app = try #require(try CLI.jsonObject(made.stdout)["id"] as? String, "\(made)")

            let created = try await server.admin(
                ["webhooks", "create", "--app", app, "--url", Self.url, "--events", "session.ended", "user.suspended"])
            #expect(created.succeeded, "\(created)")
            let secretLine = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("secret: ") }, "\(created)")
            let secret = String(secretLine.dropFirst("secret: ".count))
            #expect(secret.hasPrefix("whsec_") && secret.count == 49, "\(secret)")
            #expect(created.stdout.contains("events: session.ended user.suspended"), "\(created)")
            let id = try #require(
                created.stdout.split(separator: "\n").first { $0.hasPrefix("id: ") }?.split(separator: " ").last.map(String.init))

            let list = try await server.admin(["webhooks", "list", "--app", app])
            #expect(list.succeeded && list.stdout.contains(id) && list.stdout.contains("active"), "\(list)")
            #expect(!list.stdout.contains(secret) && !list.stdout.contains("whsec_"), "\(list)")
            let listJSON = try await server.admin(["webhooks", "list", "--app", app, "--json"])
            #expect((try CLI.jsonObject(listJSON.stdout)["webhooks"] as? [Any])?.count == 1 && !listJSON.stdout.contains(secret))

            let paused = try await server.admin(["webhooks", "update", "--app", app, id, "--pause"])
            #expect(paused.succeeded && paused.stdout.contains("paused: paused by an operator"), "\(paused)")
            let resumed = try await server.admin(["webhooks", "update", "--app", app, id, "--resume", "--events", "cutoff.set"])
            #expect(resumed.succeeded && resumed.stdout.contains("active") && resumed.stdout.contains("cutoff.set"), "\(resumed)")

            let refused = try await server.admin(["webhooks", "create", "--app", app, "--url", "https://127.0.0.1/", "--events", "session.ended"])
            #expect(!refused.succeeded && refused.stderr.contains("loopback"), "\(refused)")
            let badKind = try await server.admin(["webhooks", "create", "--app", app, "--url", Self.url, "--events", "session.exploded"])
            #expect(!badKind.succeeded && badKind.stderr.contains("event kind"), "\(badKind)")
            let nothing = try await server.admin(["webhooks", "update", "--app", app, id])
            #expect(!nothing.succeeded && nothing.stderr.contains("nothing to change"), "\(nothing)")
            let badID = try await server.admin(["webhooks", "delete", "--app", app, "not-an-id"])
            #expect(!badID.succeeded && badID.stderr.contains("not a webhook endpoint id"), "\(badID)")

            let deleted = try await server.admin(["webhooks", "delete", "--app", app, id])
            #expect(deleted.succeeded && deleted.stdout.contains("deleted"), "\(deleted)")
            let again = try await server.admin(["webhooks", "delete", "--app", app, id])
            #expect(!again.succeeded, "\(again)")
            #expect((try await server.admin(["webhooks", "list", "--app", app])).stdout.contains("no webhook endpoints"))
        }
    }

    @Test("deliveries lists the events owed to an endpoint; replay sends one again; bad ids are clear")
    func deliveries() async throws {
        try await SpawnedServer.run { server in
            let made = try await server.admin(["apps", "create", "--name", "Chat", "--json"])
            let app = try #require(try CLI.jsonObject(made.stdout)["id"] as? String, "\(made)")
            let created = try await server.admin(
                ["webhooks", "create", "--app", app, "--url", Self.url, "--events", "user.suspended", "--json"])
            let id = try #require(try CLI.jsonObject(created.stdout)["id"] as? String, "\(created)")
            let empty = try await server.admin(["webhooks", "deliveries", "--app", app, id])
            #expect(empty.succeeded && empty.stdout.contains("no deliveries"), "\(empty)")

            #expect(try await server.admin(["users", "suspend", app, "mallory"]).succeeded)
            let listed = try await server.admin(["webhooks", "deliveries", "--app", app, id])
            #expect(listed.succeeded, "\(listed)")
            for text in ["EVENT", "user.suspended", "mallory #1", "pending"] {
                #expect(listed.stdout.contains(text), "\(text): \(listed)")
            }
            let json = try await server.admin(["webhooks", "deliveries", "--app", app, id, "--json"])
            let rows = try #require(try CLI.jsonObject(json.stdout)["deliveries"] as? [[String: Any]], "\(json)")
            let event = try #require(rows.first?["event_id"] as? String)

            let replayed = try await server.admin(["webhooks", "replay", "--app", app, id, event])
            #expect(replayed.succeeded && replayed.stdout.contains(event) && replayed.stdout.contains("pending"), "\(replayed)")
            let unknown = try await server.admin(["webhooks", "replay", "--app", app, id, UUID().uuidString])
            #expect(!unknown.succeeded && unknown.stderr.contains("not found"), "\(unknown)")
            let badEvent = try await server.admin(["webhooks", "replay", "--app", app, id, "nope"])
            #expect(!badEvent.succeeded && badEvent.stderr.contains("not an event id"), "\(badEvent)")
            let badLimit = try await server.admin(["webhooks", "deliveries", "--app", app, id, "--limit", "0"])
            #expect(!badLimit.succeeded && badLimit.stderr.contains("--limit must be 1…200"), "\(badLimit)")
        }
    }
}
