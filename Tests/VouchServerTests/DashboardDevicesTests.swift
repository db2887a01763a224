import Foundation
import Testing
import VouchProtocol
import VouchStore

/// The user page's devices over real HTTP: each live session with its device, signed out one by
/// one, checked against what the session's own client is then told.
@Suite("Dashboard: a user's devices")
struct DashboardDevicesTests {
    @Test("the user page lists each device, escaped; Sign out ends that session only, audited; refusals are inline")
    func devices() async throws {
        try await DashboardBrowser.run { server, browser in
            let fixture = try await Fixture.make(server)
            let phone = try await fixture.signedInDevice(["name": "Alice <b>phone</b>", "platform": "iOS 18.1", "app_version": "2.4.1 (311)"])
            server.clock.advance(by: 120)
            let laptop = try await fixture.signedInDevice([:])
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let app = Fixture.bare(fixture.appID)
            let userPage = "/dashboard/users?app=\(app)&user=alice"

            let page = try await browser.get(userPage)
            #expect(page.status == 200)
            #expect(page.text.contains("Alice &lt;b&gt;phone&lt;/b&gt;") && !page.text.contains("<b>phone"))
            #expect(page.text.contains("iOS 18.1") && page.text.contains("2.4.1 (311)") && page.text.contains("Unnamed device"))
            #expect(page.text.contains(#"id="user-sessions">2<"#))
            let rows = page.text.components(separatedBy: #"<tr class="device""#).dropFirst()
            #expect(rows.count == 2)
            #expect(rows.first?.contains(phone.id) == true, "oldest first")
            #expect(rows.first?.contains(Timestamp.rfc3339(server.clock.now - 120)) == true)

            let csrf = try #require(DashboardBrowser.csrf(in: page))
            let fields = [("csrf", csrf), ("app", app), ("user", "alice")]
            let signedOut = try await browser.post("/dashboard/sessions/\(phone.id)/revoke", fields)
            #expect(signedOut.status == 303 && signedOut.header("Location") == userPage)
            let after = try await browser.get(userPage)
            #expect(after.text.contains("Signed out “Alice &lt;b&gt;phone&lt;/b&gt;” of alice"))
            #expect(!after.text.contains(phone.id) && after.text.contains(laptop.id))
            #expect(try await server.challengeReason(phone.token) == "session_revoked")
            #expect(try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(laptop.token)"]).status == 200)

            let again = try await browser.post("/dashboard/sessions/\(phone.id)/revoke", fields)
            #expect(again.status == 303)
            #expect(try await browser.get(userPage).text.contains("had already ended"))
            let unknown = try await browser.post("/dashboard/sessions/\(UUID().uuidString)/revoke", fields)
            #expect(unknown.status == 404 && unknown.text.contains("That session was not found.") && unknown.text.contains(laptop.id))
            #expect(try await browser.post("/dashboard/sessions/not-a-uuid/revoke", fields).status == 404)
            #expect(try await browser.post("/dashboard/sessions/\(laptop.id)/revoke", [("app", app), ("user", "alice")]).status == 403)
            #expect(try await server.challengeReason(laptop.token) == nil)

            let revoked = try await server.store.auditEntries(AuditQuery(action: "session.revoke", limit: 10)).map(\.entry)
            // The forged post never reached the handler; the refusals did.
            #expect(revoked.map(\.outcome).sorted() == ["http_404", "http_404", "ok", "ok"])
            #expect(revoked.contains { $0.objectType == "session" && $0.objectID == phone.id && $0.appID == LayerID.parseUUID(app) })

            _ = try await browser.post("/dashboard/users/revoke-sessions", fields)
            #expect(try await browser.get(userPage).text.contains("No live sessions."))
        }
    }
}
