import Foundation
import Testing
import VouchProtocol
import VouchStore

/// Cutoffs from the dashboard over real HTTP: the confirmation page counts and changes nothing,
/// the confirmed post ends exactly those sessions, and the object pages show the last cutoff.
@Suite("Dashboard: cutoffs of apps, providers and keys")
struct DashboardCutoffTests {
    private func signedIn(_ body: @Sendable (LiveServer, DashboardBrowser, Fixture, String) async throws -> Void) async throws {
        try await DashboardBrowser.run { server, browser in
            let fixture = try await Fixture.make(server)
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let csrf = try #require(DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")))
            try await body(server, browser, fixture, csrf)
        }
    }

    @Test("key: the confirmation counts live sessions and changes nothing; confirming ends them with the reason, shown escaped")
    func key() async throws {
        try await signedIn { server, browser, fixture, csrf in
            let first = try await fixture.signedInSession(user: "alice")
            let second = try await fixture.signedInSession(user: "bob")
            let key = Fixture.bare(fixture.activeKey.id)
            let providerPage = "/dashboard/providers/\(Fixture.bare(fixture.providerID))"
            let before = try await browser.get(providerPage)
            #expect(before.text.contains(#"action="/dashboard/keys/\#(key)/cutoff/review""#))
            #expect(before.text.contains(#"<td class="key-cutoff">never</td>"#) && before.text.contains("No cutoff yet"))

            let reason = "laptop <stolen> & gone"
            let review = try await browser.post("/dashboard/keys/\(key)/cutoff/review", [("csrf", csrf), ("reason", reason)])
            #expect(review.status == 200)
            #expect(review.text.contains(#"id="cutoff-live">2<"#) && review.text.contains("End 2 sessions"))
            #expect(review.text.contains(#"value="laptop &lt;stolen&gt; &amp; gone""#))
            #expect(review.text.contains(#"action="/dashboard/keys/\#(key)/cutoff""#) && review.text.contains(#"href="\#(providerPage)""#))
            #expect(try await server.challengeReason(first) == nil, "the confirmation page ends nothing")
            #expect(try await server.store.cutoff(of: .key(try #require(LayerID.parseUUID(key)))).at == nil)

            let unconfirmed = try await browser.post("/dashboard/keys/\(key)/cutoff", [("csrf", csrf), ("reason", reason)])
            #expect(unconfirmed.status == 422 && unconfirmed.text.contains("role=\"alert\""))
            #expect(unconfirmed.text.contains(#"value="laptop &lt;stolen&gt; &amp; gone""#), "the reason is kept for the next try")
            #expect(try await server.challengeReason(first) == nil)

            let confirmed = try await browser.post("/dashboard/keys/\(key)/cutoff", [("csrf", csrf), ("reason", reason), ("confirm", "yes")])
            #expect(confirmed.status == 303 && confirmed.header("Location") == providerPage)
            for session in [first, second] {
                let answer = try await server.request(.GET, "/users/me", headers: ["Authorization": "Bearer \(session)"])
                #expect(answer.data["reason"] as? String == "session_revoked" && answer.data["detail"] as? String == reason)
            }
            let after = try await browser.get(providerPage)
            #expect(after.text.contains("Cut off key \(fixture.activeKey.id): 2 sessions ended."))
            #expect(after.text.contains("\(Timestamp.rfc3339(server.clock.now))<br>“laptop &lt;stolen&gt; &amp; gone”"))
            let third = try await fixture.signedInSession(user: "alice")
            #expect(try await server.challengeReason(third) == nil, "a session opened afterwards lives")
            let next = try await browser.post("/dashboard/keys/\(key)/cutoff/review", [("csrf", csrf)])
            #expect(next.text.contains(#"id="cutoff-live">1<"#) && next.text.contains("End 1 session<"))

            // Newest first: the cutoff, then the unconfirmed post it refused; the confirmation pages record nothing.
            let audited = try await server.store.auditEntries(AuditQuery(limit: 100)).map(\.entry).filter { $0.action.hasPrefix("cutoff") }
            #expect(audited.map(\.action) == ["cutoff.key", "cutoff.key"] && audited.map(\.outcome) == ["ok", "http_422"])
            #expect(audited.first?.objectID == key && audited.first?.note == "2 sessions ended; reason: \(reason)")
        }
    }

    @Test("a bad reason (control character, 10 KB) is an inline error that is not echoed, and nothing is cut off")
    func badReasons() async throws {
        try await signedIn { server, browser, fixture, csrf in
            let session = try await fixture.signedInSession()
            let app = Fixture.bare(fixture.appID)
            for reason in ["bell\u{7}ring", String(repeating: "x", count: 10_240)] {
                for path in ["/dashboard/apps/\(app)/cutoff/review", "/dashboard/apps/\(app)/cutoff"] {
                    let answer = try await browser.post(path, [("csrf", csrf), ("reason", reason), ("confirm", "yes")])
                    #expect(answer.status == 422, "\(path)")
                    #expect(answer.text.contains("role=\"alert\"") && answer.text.contains("`reason`"))
                    #expect(!answer.text.contains(reason) && answer.text.contains(#"id="cutoff-reason" name="reason" value="""#))
                }
            }
            #expect(try await server.challengeReason(session) == nil)
            #expect(try await server.store.cutoff(of: .app(try #require(LayerID.parseUUID(app)))).at == nil)
        }
    }

    @Test("app and provider: cut off without a reason, shown on their pages; unknown objects 404, a deleted key 409")
    func appAndProvider() async throws {
        try await signedIn { server, browser, fixture, csrf in
            let app = Fixture.bare(fixture.appID)
            let provider = Fixture.bare(fixture.providerID)
            let session = try await fixture.signedInSession()
            let review = try await browser.post("/dashboard/apps/\(app)/cutoff/review", [("csrf", csrf), ("reason", "  ")])
            #expect(review.text.contains(#"id="cutoff-live">1<"#) && review.text.contains("Cut off app Chat"))
            let cut = try await browser.post("/dashboard/apps/\(app)/cutoff", [("csrf", csrf), ("reason", ""), ("confirm", "yes")])
            #expect(cut.status == 303 && cut.header("Location") == "/dashboard/apps#app-\(app)")
            #expect(try await server.challengeReason(session) == "session_revoked")
            let apps = try await browser.get("/dashboard/apps")
            #expect(apps.text.contains("Cut off app \(fixture.appID): 1 session ended."))
            #expect(apps.text.contains("Last cutoff \(Timestamp.rfc3339(server.clock.now))</span>"), "no reason, no quotes")
            #expect(apps.text.contains(#"action="/dashboard/apps/\#(app)/cutoff/review""#))

            server.clock.advance(by: 60)
            let again = try await fixture.signedInSession()
            let providerCut = try await browser.post(
                "/dashboard/providers/\(provider)/cutoff", [("csrf", csrf), ("reason", "rotated"), ("confirm", "yes")])
            #expect(providerCut.status == 303 && providerCut.header("Location") == "/dashboard/providers/\(provider)")
            #expect(try await server.challengeReason(again) == "session_revoked")
            let providerPage = try await browser.get("/dashboard/providers/\(provider)")
            #expect(providerPage.text.contains("Cut off provider \(fixture.providerID): 1 session ended."))
            #expect(providerPage.text.contains("Last cutoff \(Timestamp.rfc3339(server.clock.now)), reason: “rotated”"))

            for path in ["/dashboard/apps/\(UUID().uuidString)/cutoff", "/dashboard/keys/nope/cutoff/review"] {
                let answer = try await browser.post(path, [("csrf", csrf), ("confirm", "yes")])
                #expect(answer.status == 404 && answer.text.contains("not found"), "\(path)")
            }
            let deleted = Fixture.bare(fixture.deletedKey.id)
            for path in ["/dashboard/keys/\(deleted)/cutoff/review", "/dashboard/keys/\(deleted)/cutoff"] {
                let answer = try await browser.post(path, [("csrf", csrf), ("confirm", "yes")])
                #expect(answer.status == 409 && answer.text.contains("The key is deleted"), "\(path)")
            }
            #expect(!providerPage.text.contains(#"action="/dashboard/keys/\#(deleted)/cutoff/review""#), "a deleted key offers no cutoff")
            #expect(try await browser.post("/dashboard/apps/\(app)/cutoff", [("confirm", "yes")]).status == 403)
        }
    }
}
