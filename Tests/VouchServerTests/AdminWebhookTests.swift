import Foundation
import Testing
import VouchServer
import VouchStore

/// `/admin/apps/<app>/webhooks` over real HTTP: the secret shown once, the URL held to the
/// outbound policy, the events to the catalogue, and an app's path reaching only its own.
@Suite("Admin API: webhook endpoints")
struct AdminWebhookTests {
    static let publicURL = "https://93.184.215.14/vouch-events"

    static func create(
        _ server: LiveServer, app: String, url: String = publicURL, events: [String] = ["session.ended"]
    ) async throws
        -> HTTPResult
    {
        try await server.post("/admin/apps/\(app)/webhooks", ["url": url, "events": events], admin: true)
    }

    @Test("made with its secret shown once, listed and read without it, changed, paused, resumed, deleted")
    func lifecycle() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let made = try await Self.create(server, app: app, events: ["session.ended", "user.suspended"])
            #expect(made.status == 201)
            let id = try #require(made.json["id"] as? String)
            let secret = try #require(made.json["secret"] as? String)
            #expect(secret.hasPrefix("whsec_") && secret.count == 6 + 43)
            #expect(made.json["url"] as? String == Self.publicURL)
            #expect(made.json["events"] as? [String] == ["session.ended", "user.suspended"])
            #expect(made.json["paused"] as? Bool == false)

            let listed = try await server.request(.GET, "/admin/apps/\(app)/webhooks", admin: true)
            #expect(listed.status == 200 && !listed.text.contains(secret))
            let entries = try #require(listed.json["webhooks"] as? [[String: Any]])
            #expect(entries.count == 1 && entries[0]["id"] as? String == id && entries[0]["secret"] == nil)
            let read = try await server.request(.GET, "/admin/apps/\(app)/webhooks/\(id)", admin: true)
            #expect(read.status == 200 && read.json["id"] as? String == id && !read.text.contains(secret))
            let others = try await server.request(.GET, "/admin/apps/\(Fixture.bare(fixture.otherAppID))/webhooks", admin: true)
            #expect((others.json["webhooks"] as? [Any])?.isEmpty == true)

            let path = "/admin/apps/\(app)/webhooks/\(id)"
            let changed = try await server.request(.PATCH, path, body: server.json(["events": ["cutoff.set"]]), admin: true)
            #expect(changed.status == 200 && changed.json["events"] as? [String] == ["cutoff.set"])
            #expect(changed.json["url"] as? String == Self.publicURL, "what is not named stays")
            let paused = try await server.request(.PATCH, path, body: server.json(["paused": true]), admin: true)
            #expect(paused.json["paused"] as? Bool == true && paused.json["pause_reason"] as? String == "paused by an operator")
            #expect(paused.json["paused_at"] is String)
            let resumed = try await server.request(.PATCH, path, body: server.json(["paused": false]), admin: true)
            #expect(resumed.json["paused"] as? Bool == false && resumed.json["pause_reason"] == nil)

            let otherPath = "/admin/apps/\(Fixture.bare(fixture.otherAppID))/webhooks/\(id)"
            #expect(try await server.request(.GET, otherPath, admin: true).status == 404, "another app's endpoint is not found")
            #expect(try await server.request(.PATCH, otherPath, body: server.json(["paused": true]), admin: true).status == 404)
            #expect(try await server.request(.DELETE, otherPath, admin: true).status == 404)
            #expect(try await server.request(.DELETE, path, admin: true).status == 204)
            #expect(try await server.request(.DELETE, path, admin: true).status == 404)
            #expect(try await server.request(.GET, path, admin: true).status == 404)

            let audited = try await server.store.auditEntries(AuditQuery(limit: 50)).map(\.entry)
            for action in ["webhook.create", "webhook.update", "webhook.delete"] {
                #expect(audited.contains { $0.action == action && $0.objectType == "webhook" && $0.objectID == id }, "\(action)")
            }
            #expect(!audited.contains { String(describing: $0).contains(secret) }, "the secret is in no audit entry")
        }
    }

    @Test("a URL of every forbidden kind, bad events, a missing member, an unknown app: clear 4xx, nothing stored")
    func refusals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let forbidden = [
                "http://93.184.215.14/", "https://127.0.0.1/", "https://localhost:8443/", "https://10.0.0.1/",
                "https://169.254.169.254/latest/meta-data/", "https://[::1]/", "https://2130706433/", "https://user:pw@93.184.215.14/",
                "ftp://93.184.215.14/", "not a url", "https://no-such-host.invalid/",
            ]
            for url in forbidden {
                let refused = try await Self.create(server, app: app, url: url)
                #expect(refused.status == 422, "\(url)")
                #expect(refused.json["id"] as? String == "invalid_property" && refused.data["property"] as? String == "url", "\(url)")
            }
            let loopback = try await Self.create(server, app: app, url: "https://127.0.0.1/")
            #expect(loopback.text.contains("--allow-loopback-outbound"), "the message says what would allow it")

            for events in [[], ["session.ended", "session.ended"], ["session.exploded"]] as [[String]] {
                let refused = try await Self.create(server, app: app, events: events)
                #expect(refused.status == 422 && refused.data["property"] as? String == "events", "\(events)")
            }
            #expect(try await server.post("/admin/apps/\(app)/webhooks", ["events": ["session.ended"]], admin: true).status == 422)
            #expect(try await server.post("/admin/apps/\(app)/webhooks", ["url": Self.publicURL], admin: true).status == 422)
            #expect(try await server.post("/admin/apps/\(app)/webhooks", ["url": 7, "events": ["session.ended"]], admin: true).status == 422)
            #expect(try await Self.create(server, app: UUID().uuidString).status == 404)
            #expect(try await server.post("/admin/apps/\(app)/webhooks", ["url": Self.publicURL, "events": ["session.ended"]]).status == 403)

            // A change is held to the same rules, and a refused one changes nothing.
            let made = try await Self.create(server, app: app)
            let path = "/admin/apps/\(app)/webhooks/\(try #require(made.json["id"] as? String))"
            #expect(try await server.request(.PATCH, path, body: server.json(["url": "https://10.1.1.1/"]), admin: true).status == 422)
            #expect(try await server.request(.PATCH, path, body: server.json(["events": []]), admin: true).status == 422)
            #expect(try await server.request(.GET, path, admin: true).json["url"] as? String == Self.publicURL)
            let listed = try await server.request(.GET, "/admin/apps/\(app)/webhooks", admin: true)
            #expect((listed.json["webhooks"] as? [Any])?.count == 1)
        }
    }

    @Test("at most 20 endpoints an app")
    func limit() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            for index in 0..<20 {
                #expect(try await Self.create(server, app: app, url: Self.publicURL + "/\(index)").status == 201)
            }
            let refused = try await Self.create(server, app: app)
            #expect(refused.status == 409 && refused.json["id"] as? String == "conflict")
        }
    }

    @Test("with --allow-loopback-outbound: loopback over http is accepted, private addresses still refused")
    func loopbackAllowed() async throws {
        try await LiveServer.run(configure: { $0.allowsLoopbackOutbound = true }) { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            #expect(try await Self.create(server, app: app, url: "http://127.0.0.1:9/hook").status == 201)
            #expect(try await Self.create(server, app: app, url: "http://localhost:9/hook").status == 201)
            #expect(try await Self.create(server, app: app, url: "http://10.0.0.1/hook").status == 422)
            #expect(try await Self.create(server, app: app, url: "http://93.184.215.14/hook").status == 422, "http only to loopback")
        }
    }
}
