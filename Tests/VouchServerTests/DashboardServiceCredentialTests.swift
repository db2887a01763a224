import Foundation
import Testing
import VouchProtocol
import VouchStore
@testable import VouchServer

/// The apps page's access-token settings and service credentials (PROTOCOL §8.16), over real
/// HTTP, checked against what the store then holds and against `POST /introspect`.
@Suite("Dashboard: service credentials and access-token settings")
struct DashboardServiceCredentialTests {
    private func signedIn(_ body: @Sendable (LiveServer, DashboardBrowser, String, AppRecord) async throws -> Void) async throws {
        try await DashboardBrowser.runSignedIn(body)
    }

    /// The credential on a page, if one is there.
    private static func credential(in page: HTTPResult) -> String? {
        page.text.firstMatch(of: /vsc_[A-Za-z0-9_-]{43}/).map { String($0.output) }
    }

    /// `POST /introspect` with `credential`: 200 when it works (for a token it does not know,
    /// `{"active": false}`), 401 when it does not.
    private static func introspectStatus(_ browser: DashboardBrowser, _ credential: String) async throws -> Int {
        try await browser.post("/introspect", [("token", "not-a-token")], headers: ["Authorization": "Bearer \(credential)"]).status
    }

    @Test("create: shown once on the answer (201), stored as its hash, works; then listed by name without it")
    func createShownOnce() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)/service-credentials"
            let created = try await browser.post(path, [("csrf", csrf), ("name", "  chat <server>  ")])
            #expect(created.status == 201)
            #expect(created.text.contains("copy it now") && created.text.contains("shown this once"), "\(created.text)")
            let credential = try #require(Self.credential(in: created), "\(created.text)")
            #expect(created.text.contains(#"id="created-credential">\#(credential)</code>"#))
            let stored = try #require(try await server.store.serviceCredentials(appID: app.id).first)
            #expect(stored.name == "chat <server>", "trimmed as typed")
            #expect(stored.credentialHash == ServiceCredentialText.hash(credential))
            #expect(stored.revokedAt == nil)
            #expect(try await Self.introspectStatus(browser, credential) == 200)

            let listed = try await browser.get("/dashboard/apps")
            #expect(listed.status == 200)
            #expect(Self.credential(in: listed) == nil && !listed.text.contains("created-credential"), "never shown again")
            #expect(listed.text.contains("<td>chat &lt;server&gt;</td>"), "the name, escaped: \(listed.text)")
            #expect(listed.text.contains(stored.id.lowercased))
            #expect(listed.text.contains("\(path)/\(stored.id.lowercased)/revoke"), "a Revoke button")

            let entries = try await server.store.auditEntries(AuditQuery(limit: 10)).map(\.entry)
            let audited = try #require(entries.first { $0.action == "service_credential.create" })
            #expect(audited.objectType == "service_credential" && audited.objectID == stored.id.lowercased)
            #expect(audited.actor?.hasPrefix("dashboard:") == true)
        }
    }

    @Test("create refuses a bad name inline, an unknown app with 404, a post without the CSRF token with 403; nothing is stored")
    func createRefusals() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)/service-credentials"
            for name in ["", "   ", String(repeating: "x", count: 129), "evil\u{202E}txt"] {
                let refused = try await browser.post(path, [("csrf", csrf), ("name", name)])
                #expect(refused.status == 422, "\(name.debugDescription)")
                #expect(refused.text.contains("role=\"alert\"") && refused.text.contains("`name`"), "\(name.debugDescription): \(refused.text)")
                #expect(Self.credential(in: refused) == nil)
            }
            let unknown = try await browser.post("/dashboard/apps/\(UUID().uuidString)/service-credentials", [("csrf", csrf), ("name", "x")])
            #expect(unknown.status == 404 && unknown.text.contains("App not found."))
            #expect(try await browser.post("/dashboard/apps/not-a-uuid/service-credentials", [("csrf", csrf), ("name", "x")]).status == 404)
            for form in [[("name", "forged")], [("name", "forged"), ("csrf", "not-the-token")]] {
                let forged = try await browser.post(path, form)
                #expect(forged.status == 403 && forged.text.contains("CSRF"))
                #expect(Self.credential(in: forged) == nil)
            }
            #expect(try await server.store.serviceCredentials(appID: app.id).isEmpty)
        }
    }

    @Test("revoke: only with the CSRF token, only through its own app; then refused by /introspect and shown as revoked")
    func revoke() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)/service-credentials"
            let credential = try #require(Self.credential(in: try await browser.post(path, [("csrf", csrf), ("name", "chat server")])))
            let id = try #require(try await server.store.serviceCredentials(appID: app.id).first?.id)
            let revokePath = "\(path)/\(id.lowercased)/revoke"

            #expect(try await browser.post(revokePath, []).status == 403)
            #expect(try await browser.post(revokePath, [("csrf", "not-the-token")]).status == 403)
            let other = AppRecord(id: UUID(), name: "Other", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(other)
            let elsewhere = try await browser.post("/dashboard/apps/\(other.id.lowercased)/service-credentials/\(id.lowercased)/revoke", [("csrf", csrf)])
            #expect(elsewhere.status == 404 && elsewhere.text.contains("Service credential not found."), "\(elsewhere.text)")
            #expect(try await browser.post("\(path)/\(UUID().uuidString)/revoke", [("csrf", csrf)]).status == 404)
            #expect(try await browser.post("\(path)/nope/revoke", [("csrf", csrf)]).status == 404)
            #expect(try await server.store.serviceCredentials(appID: app.id).first?.revokedAt == nil, "nothing refused revoked it")
            #expect(try await Self.introspectStatus(browser, credential) == 200)

            server.clock.advance(by: 30)
            let revokedAt = server.clock.now
            let revoked = try await browser.post(revokePath, [("csrf", csrf)])
            #expect(revoked.status == 303 && revoked.header("Location") == "/dashboard/apps")
            #expect(try await server.store.serviceCredentials(appID: app.id).first?.revokedAt == revokedAt)
            // The credential check caches a record for a second (of the server's uptime, the test's clock).
            server.clock.advance(by: 1)
            #expect(try await Self.introspectStatus(browser, credential) == 401)
            let page = try await browser.get("/dashboard/apps")
            #expect(page.text.contains("Revoked service credential chat server"), "the notice")
            #expect(page.text.contains(#"<tr class="credential-revoked">"#) && !page.text.contains(revokePath), "no Revoke button left")
            #expect(page.text.contains("<td>\(Timestamp.rfc3339(revokedAt))</td>"), "when it was revoked")

            server.clock.advance(by: 60)
            #expect(try await browser.post(revokePath, [("csrf", csrf)]).status == 303, "a second revocation changes nothing")
            #expect(try await server.store.serviceCredentials(appID: app.id).first?.revokedAt == revokedAt)
        }
    }

    @Test("the app form sets the access-token lifetime and the audiences (one per line), shown as saved; an absent field keeps them")
    func accessTokenSettings() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)"
            let before = try await browser.get("/dashboard/apps")
            #expect(before.text.contains("Access tokens last 5 minutes · audiences: the app id</p>"), "the defaults: \(before.text)")
            #expect(before.text.contains(#"<input name="access_token_ttl_seconds" value="5 minutes" required>"#))

            let audiences = "chat.example.com\r\n\r\n  https://media.example.com  \r\n<b>x</b>\r\n"
            let saved = try await browser.post(path, [("csrf", csrf), ("access_token_ttl_seconds", "2m"), ("audiences", audiences)])
            #expect(saved.status == 303, "\(saved.text)")
            var stored = try #require(try await server.store.app(id: app.id))
            #expect(stored.accessTokenTTLSeconds == 120)
            #expect(stored.audiences == ["chat.example.com", "https://media.example.com", "<b>x</b>"])
            let page = try await browser.get("/dashboard/apps")
            #expect(page.text.contains("Access tokens last 2 minutes · audiences: the app id, <code>chat.example.com</code>"), "\(page.text)")
            #expect(page.text.contains("<code>&lt;b&gt;x&lt;/b&gt;</code>") && !page.text.contains("<b>x</b>"), "escaped")
            #expect(page.text.contains(">chat.example.com\nhttps://media.example.com\n&lt;b&gt;x&lt;/b&gt;</textarea>"), "\(page.text)")

            // Typed back unchanged, the page's own values save nothing new.
            let again = [("csrf", csrf), ("access_token_ttl_seconds", "2 minutes"), ("audiences", stored.audiences.joined(separator: "\n"))]
            #expect(try await browser.post(path, again).status == 303)
            #expect(try await server.store.app(id: app.id) == stored)
            #expect(try await browser.post(path, [("csrf", csrf), ("name", "Talk")]).status == 303)
            stored = try #require(try await server.store.app(id: app.id))
            #expect(stored.name == "Talk" && stored.audiences.count == 3 && stored.accessTokenTTLSeconds == 120, "absent fields are kept")
            #expect(try await browser.post(path, [("csrf", csrf), ("audiences", " \r\n ")]).status == 303)
            #expect(try await server.store.app(id: app.id)?.audiences == [], "an empty field empties the list")
        }
    }

    @Test("bad access-token settings are inline errors with the API's messages, and change nothing")
    func accessTokenRefusals() async throws {
        try await signedIn { server, browser, csrf, app in
            let path = "/dashboard/apps/\(app.id.lowercased)"
            let cases: [(field: String, value: String, message: String)] = [
                ("access_token_ttl_seconds", "6m", "between 1 second and 5 minutes"),
                ("access_token_ttl_seconds", "0", "between 1 second and 5 minutes"),
                ("access_token_ttl_seconds", "soon", "must be a duration such as 30d, 12h, 90m"),
                ("audiences", "chat server", "Each audience is 1…200 characters of printable ASCII without spaces"),
                ("audiences", "chat\nchat", "`audiences` names an audience twice."),
                ("audiences", String(repeating: "a", count: 201), "Each audience is 1…200 characters"),
                ("audiences", "café", "Each audience is 1…200 characters"),
                ("audiences", (1...21).map { "aud\($0)" }.joined(separator: "\n"), "`audiences` holds at most 20 audiences."),
            ]
            for (field, value, message) in cases {
                let refused = try await browser.post(path, [("csrf", csrf), ("name", "Renamed"), (field, value)])
                #expect(refused.status == 422, "\(field)=\(value.debugDescription): \(refused.status)")
                #expect(refused.text.contains("role=\"alert\"") && refused.text.contains(message), "\(value.debugDescription): \(refused.text)")
            }
            let stored = try await server.store.app(id: app.id)
            #expect(stored == app, "nothing refused was saved, not even the name sent beside it")
            let twenty = (1...20).map { "aud\($0)" }.joined(separator: "\n")
            #expect(try await browser.post(path, [("csrf", csrf), ("audiences", twenty)]).status == 303, "twenty is the most")
            #expect(try await browser.post(path, [("access_token_ttl_seconds", "1m")]).status == 403, "CSRF")
            #expect(try await server.store.app(id: app.id)?.accessTokenTTLSeconds == 300)
        }
    }
}
