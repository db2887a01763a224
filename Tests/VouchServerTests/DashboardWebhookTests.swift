import Foundation
import Testing
import VouchProtocol
import VouchStore
@testable import VouchServer

/// The webhooks page (PROTOCOL §8.17) over real HTTP, checked against what the store then holds.
@Suite("Dashboard: webhook endpoints")
struct DashboardWebhookTests {
    static let url = "https://93.184.215.14/vouch-events"

    private func signedIn(_ body: @Sendable (LiveServer, DashboardBrowser, String, AppRecord) async throws -> Void) async throws {
        try await DashboardBrowser.runSignedIn(body)
    }

    private static func secret(in page: HTTPResult) -> String? {
        page.text.firstMatch(of: /whsec_[A-Za-z0-9_-]{43}/).map { String($0.output) }
    }

    @Test("the apps page links to it; create shows the secret once (201), stores the ticked kinds; the list never shows it")
    func create() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)/webhooks"
            #expect(try await browser.get("/dashboard/apps").text.contains(#"href="\#(path)""#))
            let empty = try await browser.get(path)
            #expect(empty.status == 200 && empty.text.contains("None yet.") && empty.text.contains("name=\"event_session.ended\""))

            let created = try await browser.post(
                path, [("csrf", csrf), ("url", "  \(Self.url)  "), ("event_session.ended", "on"), ("event_user.suspended", "on")])
            #expect(created.status == 201, "\(created.text)")
            let secret = try #require(Self.secret(in: created), "\(created.text)")
            #expect(created.text.contains(#"id="created-webhook-secret">\#(secret)</code>"#))
            let stored = try #require(try await server.store.webhookEndpoints(appID: app.id).first)
            #expect(stored.url == Self.url && stored.secret == secret)
            #expect(stored.events == ["session.ended", "user.suspended"], "in the catalogue's order")

            let listed = try await browser.get(path)
            #expect(Self.secret(in: listed) == nil, "never shown again")
            #expect(listed.text.contains(Self.url) && listed.text.contains("session.ended, user.suspended") && listed.text.contains("active"))

            let entries = try await server.store.auditEntries(AuditQuery(limit: 10)).map(\.entry)
            let audited = try #require(entries.first { $0.action == "webhook.create" })
            #expect(audited.objectType == "webhook" && audited.objectID == stored.id.lowercased)
        }
    }

    @Test("a forbidden URL or no event is refused inline (422), an unknown app 404, a post without the CSRF token 403; nothing stored")
    func refusals() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)/webhooks"
            for url in ["https://127.0.0.1/hook", "http://93.184.215.14/", "https://10.0.0.1/", ""] {
                let refused = try await browser.post(path, [("csrf", csrf), ("url", url), ("event_session.ended", "on")])
                #expect(refused.status == 422 && refused.text.contains("role=\"alert\""), "\(url): \(refused.text)")
                #expect(Self.secret(in: refused) == nil)
            }
            let noEvents = try await browser.post(path, [("csrf", csrf), ("url", Self.url)])
            #expect(noEvents.status == 422 && noEvents.text.contains("event kind"), "\(noEvents.text)")
            let unknown = try await browser.post("/dashboard/apps/\(UUID().uuidString)/webhooks", [("csrf", csrf), ("url", Self.url)])
            #expect(unknown.status == 404 && unknown.text.contains("App not found."))
            #expect(try await browser.get("/dashboard/apps/\(UUID().uuidString)/webhooks").status == 404)
            let forged = try await browser.post(path, [("url", Self.url), ("event_session.ended", "on")])
            #expect(forged.status == 403 && forged.text.contains("CSRF"))
            #expect(try await server.store.webhookEndpoints(appID: app.id).isEmpty)
        }
    }

    @Test("pause, resume and delete: only with the CSRF token, only through the endpoint's own app")
    func changes() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)/webhooks"
            _ = try await browser.post(path, [("csrf", csrf), ("url", Self.url), ("event_cutoff.set", "on")])
            let id = try #require(try await server.store.webhookEndpoints(appID: app.id).first?.id).lowercased

            #expect(try await browser.post("\(path)/\(id)/pause", []).status == 403)
            let other = AppRecord(id: UUID(), name: "Other", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(other)
            let elsewhere = try await browser.post("/dashboard/apps/\(other.id.lowercased)/webhooks/\(id)/delete", [("csrf", csrf)])
            #expect(elsewhere.status == 404 && elsewhere.text.contains("Webhook endpoint not found."), "\(elsewhere.text)")

            #expect(try await browser.post("\(path)/\(id)/pause", [("csrf", csrf)]).status == 303)
            let paused = try await browser.get(path)
            #expect(paused.text.contains("Paused the webhook") && paused.text.contains("paused by an operator"), "\(paused.text)")
            #expect(paused.text.contains("/webhooks/\(id)/resume"))
            #expect(try await server.store.webhookEndpoints(appID: app.id).first?.isPaused == true)
            #expect(try await browser.post("\(path)/\(id)/resume", [("csrf", csrf)]).status == 303)
            #expect(try await server.store.webhookEndpoints(appID: app.id).first?.isPaused == false)
            #expect(try await browser.post("\(path)/\(id)/delete", [("csrf", csrf)]).status == 303)
            #expect(try await server.store.webhookEndpoints(appID: app.id).isEmpty)
            #expect(try await browser.post("\(path)/\(id)/delete", [("csrf", csrf)]).status == 404)
        }
    }

    @Test("an endpoint's deliveries page lists its events with their outcome; replay sends one again (CSRF token, audited)")
    func deliveries() async throws {
        try await signedIn { server, browser, csrf, app in
            // Loopback is refused by this server's outbound rules: every attempt fails at once,
            // with the refusal as its outcome.
            let endpoint = WebhookEndpointRecord(
                id: UUID(), appID: app.id, url: "https://127.0.0.1:9/hook", events: ["user.suspended"], secret: "whsec_test",
                createdAt: server.clock.now)
            try await server.store.createWebhookEndpoint(endpoint, limit: 20)
            _ = try await server.store.setSuspended(appID: app.id, userID: "mallory", suspended: true, now: server.clock.now)
            var attempted: [WebhookDelivery] = []
            let tried = await ProcessWait.eventuallyAsync(timeout: .seconds(20)) {
                attempted = (try? await server.store.webhookDeliveries(endpointID: endpoint.id, appID: app.id, limit: 5)) ?? []
                return attempted.first?.attempts ?? 0 >= 1
            }
            try #require(tried, "the worker never attempted the delivery")
            let event = try #require(attempted.first).event.id.lowercased

            let path = "/dashboard/apps/\(app.id.lowercased)/webhooks/\(endpoint.id.lowercased)"
            #expect(try await browser.get("/dashboard/apps/\(app.id.lowercased)/webhooks").text.contains(#"href="\#(path)""#))
            let page = try await browser.get(path)
            #expect(page.status == 200)
            for text in ["user.suspended", "mallory #1", event, "refused:", "\(path)/deliveries/\(event)/replay"] {
                #expect(page.text.contains(text), "\(text) missing from \(page.text)")
            }
            #expect(!page.text.contains("whsec_test"), "the secret is never on a page")

            #expect(try await browser.post("\(path)/deliveries/\(event)/replay", []).status == 403)
            #expect(try await browser.post("\(path)/deliveries/\(UUID().uuidString)/replay", [("csrf", csrf)]).status == 404)
            let replayed = try await browser.post("\(path)/deliveries/\(event)/replay", [("csrf", csrf)])
            #expect(replayed.status == 303, "\(replayed.text)")
            #expect(try await browser.get(path).text.contains("will be sent again"))
            let entries = try await server.store.auditEntries(AuditQuery(limit: 20)).map(\.entry)
            #expect(entries.contains { $0.action == "webhook.replay" && $0.objectID == endpoint.id.lowercased })
            #expect(try await browser.get("/dashboard/apps/\(app.id.lowercased)/webhooks/\(UUID().uuidString)").status == 404)
        }
    }
}
