import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTokens

/// Every state-changing dashboard form leaves one audit entry naming the browser session, over
/// real HTTP, checked against what the store then holds.
@Suite("Dashboard forms are audited")
struct DashboardAuditTests {
    @Test("each form, refusals included, records one entry by this session; reads, the validator and forged posts none")
    func everyFormAudited() async throws {
        try await DashboardBrowser.run { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let csrf = try #require(DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")))

            #expect(try await browser.post("/dashboard/apps", [("csrf", csrf), ("name", "Chat")]).status == 303)
            let app = try #require(try await server.store.apps().first)
            let appPath = "/dashboard/apps/\(app.id.lowercased)"
            #expect(try await browser.post(appPath, [("csrf", csrf), ("name", "Talk")]).status == 303)
            #expect(try await browser.post(appPath, [("csrf", csrf), ("session_ttl_seconds", "5")]).status == 422)

            let provider = try #require(try await browser.post("/dashboard/providers", [("csrf", csrf), ("name", "B")]).header("Location"))
            let providerID = String(provider.split(separator: "/").last ?? "")
            #expect(try await browser.post(provider + "/bind", [("csrf", csrf), ("app", app.id.lowercased)]).status == 303)
            #expect(try await browser.post(provider + "/unbind", [("csrf", csrf), ("app", app.id.lowercased)]).status == 303)
            #expect(
                try await browser.post(provider + "/keys", [("csrf", csrf), ("public_key", try RSAKeyPair.generate().publicKeyPEM)])
                    .status == 303)
            let providerUUID = try #require(LayerID.parseUUID(providerID))
            let key = try #require(try await server.store.keys(ofProvider: providerUUID).first)
            let keyPath = "/dashboard/keys/\(key.id.lowercased)"
            #expect(try await browser.post(keyPath + "/status", [("csrf", csrf), ("provider", providerID), ("status", "disabled")]).status == 303)
            #expect(try await browser.post(keyPath + "/delete", [("csrf", csrf), ("provider", providerID), ("confirm", "yes")]).status == 303)

            #expect((200..<300).contains(try await browser.post(appPath + "/secrets", [("csrf", csrf)]).status))
            let secret = try #require(try await server.store.registrationSecrets(appID: app.id).first)
            #expect(try await browser.post(appPath + "/secrets/\(secret.applicationKey.lowercased)/revoke", [("csrf", csrf)]).status == 303)
            let user = [("csrf", csrf), ("app", app.id.lowercased), ("user", "alice")]
            #expect(try await browser.post("/dashboard/users/suspension", user + [("suspended", "true")]).status == 303)
            #expect(try await browser.post("/dashboard/users/revoke-sessions", user).status == 303)

            // Not recorded: reads, the validator, a post without the CSRF token.
            _ = try await browser.get("/dashboard/audit")
            _ = try await browser.post("/dashboard/validate", [("csrf", csrf), ("app", app.id.lowercased), ("identity_token", "x.y.z")])
            #expect(try await browser.post("/dashboard/apps", [("name", "Forged")]).status == 403)
            #expect(try await browser.post("/dashboard/sign-out", [("csrf", csrf)]).status == 303)

            let entries = try await server.store.auditEntries(AuditQuery(limit: 100)).reversed().map(\.entry)
            #expect(
                entries.map(\.action) == [
                    "dashboard.sign_in", "app.create", "app.update", "app.update", "provider.create", "provider.bind",
                    "provider.unbind", "key.create", "key.disable", "key.delete", "secret.create", "secret.revoke",
                    "user.suspend", "user.revoke_sessions", "dashboard.sign_out",
                ])
            #expect(entries.map(\.outcome) == ["ok", "ok", "ok", "http_422"] + Array(repeating: "ok", count: 11))
            let actors = Set(entries.map(\.actor))
            #expect(actors.count == 1)
            #expect(actors.first??.hasPrefix("dashboard:") == true)
            #expect(actors.first??.count == "dashboard:".count + 12)
            #expect(entries[1].objectID == app.id.lowercased && entries[1].appID == app.id)
            #expect(entries[5].objectID == providerID && entries[5].appID == app.id)
            #expect(entries[7].objectType == "key" && entries[7].objectID == key.id.lowercased)
            #expect(entries[11].objectType == "registration_secret" && entries[11].objectID == secret.applicationKey.lowercased)
            #expect(entries[12].objectType == "user" && entries[12].objectID == "alice" && entries[12].appID == app.id)
        }
    }
}
