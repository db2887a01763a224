import Foundation
import VouchKeySourceTestSupport
import Testing
import VouchProtocol
import VouchServer
import VouchStore
import VouchTestSupport

/// The provider page's key source (PROTOCOL §8.18): set it, fetch now, see the keys and their
/// sign-ins, the alert while the source fails, and remove it.
@Suite("Dashboard: a provider's key source", .timeLimit(.minutes(3)))
struct DashboardKeySourceTests {
    @Test("set a JWKS URL, fetch now, see the keys; a failing source raises the alert; bad URLs are refused; remove it")
    func keySource() async throws {
        try await JWKSServer.run { jwks in
            try await DashboardBrowser.runSignedIn(configure: KeySourceTests.loopback) { server, browser, csrf, app in
                let provider = ProviderRecord(id: UUID(), name: "Backend", appIDs: [app.id], createdAt: server.clock.now)
                try await server.store.createProvider(provider)
                let page = "/dashboard/providers/\(provider.id.lowercased)"
                #expect(try await browser.get(page).text.contains("Keys are uploaded by hand"))

                let refused = try await browser.post(page + "/key-source", [("csrf", csrf), ("jwks_uri", "http://10.0.0.9/jwks.json")])
                #expect(refused.status == 422 && refused.text.contains("private address"), "\(refused.status)")

                jwks.publish([try PublishedKey.rsa("dash-1", index: 0)])
                jwks.setCacheControl("max-age=60")
                let saved = try await browser.post(page + "/key-source", [("csrf", csrf), ("jwks_uri", jwks.url("/jwks.json"))])
                #expect(saved.status == 303)
                #expect(try await browser.get(page).text.contains(#"id="key-source-pending""#))
                #expect(try await browser.post(page + "/key-source/refresh", [("csrf", csrf)]).status == 303)
                let fetched = try await browser.get(page).text
                #expect(fetched.contains(#"<strong id="key-source-status">ok</strong>"#))
                #expect(fetched.contains("<code>dash-1</code>") && fetched.contains("source-key-published"))
                #expect(!fetched.contains("key-source-alert"))

                jwks.setMode(.failing)
                server.clock.advance(by: 61)
                #expect(try await browser.post(page + "/key-source/refresh", [("csrf", csrf)]).status == 303)
                let failing = try await browser.get(page).text
                #expect(failing.contains(#"id="key-source-alert""#) && failing.contains("HTTP 503"), "the alert shows why")
                #expect(failing.contains("still verify until"))

                let removed = try await browser.post(page + "/key-source", [("csrf", csrf), ("remove", "yes")])
                #expect(removed.status == 303)
                #expect(try await server.store.provider(id: provider.id)?.keySource == nil)
                #expect(try await browser.get(page).text.contains("Keys are uploaded by hand"))
                #expect(try await browser.post(page + "/key-source/refresh", [("csrf", csrf)]).status == 404)
            }
        }
    }
}
