import Foundation
import Testing
import VouchProtocol
import VouchStore
@testable import VouchServer
import VouchTestSupport

@Suite("Dashboard over real HTTP")
struct DashboardTests {
    private func withBrowser(_ body: @Sendable (LiveServer, DashboardBrowser) async throws -> Void) async throws {
        try await DashboardBrowser.run(body)
    }

    @Test("/ and /dashboard lead to the sign-in page; pages carry a strict CSP")
    func redirectsAndHeaders() async throws {
        try await withBrowser { _, browser in
            let root = try await browser.get("/")
            #expect(root.status == 303)
            #expect(root.header("Location") == "/dashboard")
            let dashboard = try await browser.get("/dashboard/apps")
            #expect(dashboard.status == 303)
            #expect(dashboard.header("Location") == "/dashboard/sign-in")
            let signIn = try await browser.get("/dashboard/sign-in")
            #expect(signIn.status == 200)
            let csp = signIn.header("Content-Security-Policy") ?? ""
            #expect(csp.contains("script-src 'self'") && csp.contains("default-src 'none'") && !csp.contains("unsafe-inline"))
            #expect(signIn.header("X-Frame-Options") == "DENY")
            #expect(!signIn.text.contains("<script>"), "no inline script")
            #expect(try await browser.get("/dashboard/assets/keygen.js").header("Content-Type")?.hasPrefix("text/javascript") == true)
            #expect(try await browser.get("/dashboard/assets/nope.js").status == 404)
        }
    }

    @Test("every page names its icon, an SVG among the dashboard's own assets (no /favicon.ico 404)")
    func icon() async throws {
        try await withBrowser { _, browser in
            let link = #"<link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">"#
            #expect(try await browser.get("/dashboard/sign-in").text.contains(link))
            _ = try await browser.signIn(token: LiveServer.adminToken)
            #expect(try await browser.get("/dashboard/apps").text.contains(link))
            #expect(try await browser.get("/dashboard/providers/\(UUID())").text.contains(link), "error pages too")
            let icon = try await browser.get("/dashboard/assets/favicon.svg")
            #expect(icon.status == 200)
            #expect(icon.header("Content-Type") == "image/svg+xml")
            #expect(icon.text.hasPrefix("<svg") && icon.text.contains("</svg>"))
            // Served from 'self': the page's img-src allows it without widening the policy.
            #expect(icon.header("Content-Security-Policy")?.contains("img-src 'self'") == true)
        }
    }

    @Test("sign-in: a wrong token or a missing form token is refused; the right one opens an HttpOnly SameSite=Strict session")
    func signIn() async throws {
        try await withBrowser { _, browser in
            #expect(try await browser.signIn(token: "wrong").status == 403)
            let page = try await browser.get("/dashboard/sign-in")
            let forged = try await browser.post("/dashboard/sign-in", [("csrf", "forged"), ("admin_token", LiveServer.adminToken)])
            #expect(forged.status == 403)
            #expect(DashboardBrowser.csrf(in: page) != nil)
            let answer = try await browser.signIn(token: LiveServer.adminToken)
            #expect(answer.status == 303)
            #expect(answer.header("Location") == "/dashboard/apps")
            let cookie = answer.headers.first { $0.0.lowercased() == "set-cookie" && $0.1.hasPrefix("vouch_dashboard=") }?.1 ?? ""
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Max-Age="))
            #expect(!cookie.contains("Secure"), "plain HTTP here: Secure only with --secure-cookies")
            #expect(try await browser.get("/dashboard/apps").status == 200)
        }
    }

    @Test("sign-in attempts are rate limited per client: a burst of 10, then 429 with Retry-After")
    func signInRateLimit() async throws {
        try await withBrowser { server, browser in
            for _ in 0..<10 { #expect(try await browser.signIn(token: "wrong").status == 403) }
            let limited = try await browser.signIn(token: LiveServer.adminToken)
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") != nil)
            #expect(browser.cookies["vouch_dashboard"] == nil)
            server.clock.advance(by: 1)
            #expect(try await browser.signIn(token: LiveServer.adminToken).status == 303)
        }
    }

    @Test("a state-changing post without the CSRF token is refused and changes nothing")
    func csrf() async throws {
        try await withBrowser { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let page = try await browser.get("/dashboard/apps")
            for form in [[("name", "Forged")], [("name", "Forged"), ("csrf", "not-the-token")]] {
                let refused = try await browser.post("/dashboard/apps", form)
                #expect(refused.status == 403)
                #expect(refused.text.contains("CSRF"))
                #expect(refused.header("Content-Type")?.hasPrefix("text/html") == true)
            }
            #expect(try await server.store.apps().isEmpty)
            let created = try await browser.post(
                "/dashboard/apps",
                [
                    ("csrf", DashboardBrowser.csrf(in: page) ?? ""),
                    ("name", "Chat"), ("session_ttl_seconds", "3600"),
                ])
            #expect(created.status == 303)
            #expect(try await server.store.apps().map(\.name) == ["Chat"])
        }
    }

    @Test("what people typed is shown escaped; bad input is an inline error, not a 500")
    func escapingAndInlineErrors() async throws {
        try await withBrowser { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let csrf = DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")) ?? ""
            _ = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "<script>alert(1)</script>\"'")])
            let page = try await browser.get("/dashboard/apps")
            #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;"))
            #expect(!page.text.contains("<script>alert"))
            let tooShort = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "x"), ("session_ttl_seconds", "29")])
            #expect(tooShort.status == 422)
            #expect(tooShort.text.contains("role=\"alert\""))
            #expect(tooShort.text.contains("between 30 seconds and 365 days"), "\(tooShort.text)")
            let notNumber = try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "x"), ("session_ttl_seconds", "soon")])
            #expect(notNumber.status == 422)
            #expect(try await server.store.apps().count == 1)
            #expect(try await browser.get("/dashboard/providers/\(UUID())").status == 404)
        }
    }

    @Test("durations are shown as people read them and typed with units; a bad one is an inline error")
    func durations() async throws {
        try await withBrowser { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let csrf = DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")) ?? ""
            #expect(try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "Chat"), ("session_ttl_seconds", "30d")]).status == 303)
            let app = try #require(try await server.store.apps().first)
            #expect(app.sessionTTLSeconds == 2_592_000)
            let page = try await browser.get("/dashboard/apps")
            #expect(page.text.contains("Sessions last 30 days"), "\(page.text)")
            #expect(!page.text.contains("2592000 s"))
            // The edit field holds the same words, and they are accepted back unchanged.
            #expect(page.text.contains(#"<input name="session_ttl_seconds" value="30 days""#), "\(page.text)")
            let path = "/dashboard/apps/\(app.id.lowercased)"
            for (typed, seconds, shown) in [
                ("90m", 5400, "90 minutes"), ("1 hour", 3600, "1 hour"), ("12h", 43_200, "12 hours"),
                ("20s", 20, nil), ("3600", 3600, "1 hour"), ("26h", 93_600, "26 hours"),
                ("1 day 2 hours 5 minutes", 93_900, "1 day 2 hours 5 minutes"),
                ("30 days", 2_592_000, "30 days"),
            ] {
                let saved = try await browser.post(path, [("csrf", csrf), ("session_ttl_seconds", typed)])
                guard let shown else {
                    #expect(saved.status == 422, "\(typed): below the 30 s minimum")
                    continue
                }
                #expect(saved.status == 303, "\(typed): \(saved.text)")
                #expect(try await server.store.app(id: app.id)?.sessionTTLSeconds == Int64(seconds), "\(typed)")
                #expect(try await browser.get("/dashboard/apps").text.contains("Sessions last \(shown)"), "\(typed)")
            }
            for bad in ["soon", "30 fortnights", "12h12h", "-5m", "1.5h", "h", "1 day 30"] {
                let refused = try await browser.post(path, [("csrf", csrf), ("session_ttl_seconds", bad)])
                #expect(refused.status == 422, "\(bad.debugDescription): \(refused.status)")
                #expect(refused.text.contains("role=\"alert\""), "\(bad.debugDescription)")
                #expect(refused.text.contains("such as 30d, 12h, 90m"), "\(bad.debugDescription): \(refused.text)")
            }
            #expect(try await server.store.app(id: app.id)?.sessionTTLSeconds == 2_592_000, "nothing refused was saved")

            // A registration secret's grace period takes units too, and the notice says it in words.
            let secrets = "/dashboard/apps/\(app.id.lowercased)/secrets"
            _ = try await browser.post(secrets, [("csrf", csrf)])
            let key = try #require(try await server.store.registrationSecrets(appID: app.id).first?.applicationKey)
            let revoke = "\(secrets)/\(key.lowercased)/revoke"
            #expect(try await browser.post(revoke, [("csrf", csrf), ("grace_seconds", "31d")]).status == 422)
            #expect(try await browser.post(revoke, [("csrf", csrf), ("grace_seconds", "a while")]).status == 422)
            #expect(try await browser.post(revoke, [("csrf", csrf), ("grace_seconds", "2h")]).status == 303)
            #expect(try await server.store.registrationSecrets(appID: app.id).first?.revokedAt == server.clock.now + 7200)
            #expect(try await browser.get(secrets).text.contains("it keeps working for 2 hours"))
        }
    }

    @Test("validation tool: reasons with messages and hints, claims as sent, nonce not consumed")
    func validation() async throws {
        try await withBrowser { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let app = AppRecord(id: UUID(), name: "Chat", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(app)
            let csrf = DashboardBrowser.csrf(in: try await browser.get("/dashboard/validate")) ?? ""
            // A token whose claims cannot verify: header and claims are still shown, literals intact.
            let header = Data(#"{"alg":"RS256","typ":"JWT","cty":"layer-eit;v=1","kid":"layer:///keys/x"}"#.utf8).base64URL
            let claims = Data(#"{"iss":"layer:///providers/x","prn":"u","iat":1700000000.0,"exp":1700000600}"#.utf8).base64URL
            let answer = try await browser.post(
                "/dashboard/validate",
                [
                    ("csrf", csrf), ("app", app.id.uuidString),
                    ("identity_token", "\(header).\(claims).c2ln"),
                ])
            #expect(answer.status == 200)
            #expect(answer.text.contains("Not valid"))
            #expect(answer.text.contains("1700000000.0"))
            #expect(answer.text.contains("Server time"))
            #expect(answer.text.contains("eit_claim_wrong_type"))
            #expect(answer.text.contains("`iat`/`exp` are integers"))
            #expect(answer.text.contains("before server time"))
            let garbage = try await browser.post(
                "/dashboard/validate",
                [
                    ("csrf", csrf), ("app", app.id.uuidString),
                    ("identity_token", "<b>not a token</b>"),
                ])
            #expect(garbage.text.contains("&lt;b&gt;not a token&lt;/b&gt;"))
            #expect(garbage.text.contains("class=\"reason\""))
        }
    }

    @Test("sign-out ends the session: the old cookie no longer opens a page")
    func signOut() async throws {
        try await withBrowser { _, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let cookie = browser.cookies["vouch_dashboard"]
            let csrf = DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")) ?? ""
            let out = try await browser.post("/dashboard/sign-out", [("csrf", csrf)])
            #expect(out.status == 303)
            #expect(browser.cookies["vouch_dashboard"] == nil)
            browser.setCookie("vouch_dashboard", cookie)
            #expect(try await browser.get("/dashboard/apps").header("Location") == "/dashboard/sign-in")
        }
    }
}

@Suite("Dashboard sessions")
struct DashboardSessionTests {
    @Test("cookies are Secure only when the server is told browsers reach it over HTTPS")
    func secureCookies() {
        let plain = DashboardCookies(secure: false).set("vouch_dashboard", "t", maxAge: 60)
        let secure = DashboardCookies(secure: true).set("vouch_dashboard", "t", maxAge: 60)
        #expect(plain == "vouch_dashboard=t; Path=/dashboard; Max-Age=60; HttpOnly; SameSite=Strict")
        #expect(secure == plain + "; Secure")
        #expect(DashboardCookies(secure: true).clear("vouch_dashboard").contains("Max-Age=0"))
    }

    @Test("bounded in count (oldest goes first) and in time")
    func bounded() async {
        let clock = ManualClock(1_000)
        let sessions = DashboardSessions(capacity: 2, lifetimeSeconds: 100, clock: clock.closure)
        let first = await sessions.open()
        clock.advance(by: 1)
        let second = await sessions.open()
        clock.advance(by: 1)
        let third = await sessions.open()
        #expect(await sessions.count == 2)
        #expect(await sessions.session(token: first.token) == nil)
        #expect(await sessions.session(token: second.token)?.id == second.session.id)
        clock.advance(by: 99)
        #expect(await sessions.session(token: second.token) == nil)
        #expect(await sessions.session(token: third.token) != nil)
        clock.advance(by: 1)
        #expect(await sessions.session(token: third.token) == nil)
        #expect(second.session.csrfToken != third.session.csrfToken)
    }
}

private extension Data {
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
