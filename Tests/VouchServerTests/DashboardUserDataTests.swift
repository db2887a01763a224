import Foundation
import Testing
import VouchProtocol
import VouchStore

/// The user page's export and erasure over real HTTP: the export is a JSON file to save, the
/// erasure needs "I am sure", and both are audited under what the audit log may keep.
@Suite("Dashboard: a user's data")
struct DashboardUserDataTests {
    @Test("the export downloads as JSON; Delete user needs the box ticked, then signs every device out and leaves a pseudonym")
    func exportAndErase() async throws {
        try await DashboardBrowser.run { server, browser in
            let fixture = try await Fixture.make(server)
            let phone = try await fixture.signedInDevice(["name": "Alice's phone"])
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let app = Fixture.bare(fixture.appID)
            let userPage = "/dashboard/users?app=\(app)&user=alice"

            let page = try await browser.get(userPage)
            #expect(page.text.contains(#"id="user-export" href="/dashboard/users/export?app=\#(app)&amp;user=alice""#))
            let download = try await browser.get("/dashboard/users/export?app=\(app)&user=alice")
            #expect(download.status == 200)
            #expect(download.header("Content-Disposition") == #"attachment; filename="vouch-user-export.json""#)
            let export = try download.decode(UserExportResponse.self)
            #expect(export.user.userID == "alice" && export.sessions.map(\.sessionID) == [phone.id])
            let unknown = try await browser.get("/dashboard/users/export?app=\(app)&user=nobody")
            #expect(unknown.status == 404 && unknown.text.contains("User not found"))

            let csrf = try #require(DashboardBrowser.csrf(in: page))
            let fields = [("csrf", csrf), ("app", app), ("user", "alice")]
            let unsure = try await browser.post("/dashboard/users/erase", fields)
            #expect(unsure.status == 422 && unsure.text.contains("Tick “I am sure”"))
            #expect(try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(phone.token)"]).status == 200)

            let erased = try await browser.post("/dashboard/users/erase", fields + [("confirm", "yes")])
            #expect(erased.status == 303 && erased.header("Location") == "/dashboard/users?app=\(app)")
            let notice = try await browser.get("/dashboard/users?app=\(app)")
            #expect(notice.text.contains("Deleted alice: 1 live session(s) ended, 1 forgotten"))
            #expect(try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(phone.token)"]).status == 401)
            #expect(try await browser.get(userPage).text.contains("has not signed in to this app yet"))

            let entries = try await server.store.auditEntries(AuditQuery(appID: LayerID.parseUUID(app), limit: 50)).map(\.entry)
            #expect(!entries.contains { $0.objectID == "alice" })
            let deletions = entries.filter { $0.action == "user.delete" }
            #expect(deletions.map(\.outcome) == ["ok", "http_422"])
            #expect(deletions.allSatisfy { $0.objectID?.hasPrefix("erased-") == true || $0.objectID == nil })
            #expect(entries.contains { $0.action == "user.export" && $0.objectID == deletions.first?.objectID }, "the export, pseudonymised")
        }
    }
}
