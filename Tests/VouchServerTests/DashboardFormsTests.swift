import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTokens
@testable import VouchServer

/// The dashboard's forms for providers, keys and registration secrets, over real HTTP, checked
/// against what the store then holds.
@Suite("Dashboard forms: providers, keys, secrets")
struct DashboardFormsTests {
    private func signedIn(_ body: @Sendable (LiveServer, DashboardBrowser, String) async throws -> Void) async throws {
        try await DashboardBrowser.run { server, browser in
            _ = try await browser.signIn(token: LiveServer.adminToken)
            let csrf = try #require(DashboardBrowser.csrf(in: try await browser.get("/dashboard/apps")))
            try await body(server, browser, csrf)
        }
    }

    @Test("provider: create, bind, unbind; keys: upload, refuse a bad or repeated PEM inline, disable, delete only when confirmed")
    func providersAndKeys() async throws {
        try await signedIn { server, browser, csrf in
            let app = AppRecord(id: UUID(), name: "Chat", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(app)
            let created = try await browser.post("/dashboard/providers", [("csrf", csrf), ("name", "Backend")])
            #expect(created.status == 303)
            let location = try #require(created.header("Location"))
            let providerID = try #require(LayerID.parseUUID(location.split(separator: "/").last ?? ""))
            #expect(try await browser.get("/dashboard/providers").text.contains(LayerID.provider(providerID)))
            let opened = try await browser.get("/dashboard/providers/open?id=\(LayerID.provider(providerID))")
            #expect(opened.header("Location") == location)

            #expect(try await browser.post(location + "/bind", [("csrf", csrf), ("app", app.id.lowercased)]).status == 303)
            #expect(try await server.store.provider(id: providerID)?.appIDs == [app.id])
            #expect(try await browser.post(location + "/unbind", [("csrf", csrf), ("app", app.id.lowercased)]).status == 303)
            #expect(try await server.store.provider(id: providerID)?.appIDs == [])
            #expect(try await browser.post(location + "/bind", [("csrf", csrf), ("app", UUID().uuidString)]).status == 404)

            let garbage = try await browser.post(location + "/keys", [("csrf", csrf), ("public_key", "<not a key>")])
            #expect(garbage.status == 422)
            #expect(garbage.text.contains("role=\"alert\"") && !garbage.text.contains("<not a key>"))
            let pem = try RSAKeyPair.generate().publicKeyPEM
            #expect(try await browser.post(location + "/keys", [("csrf", csrf), ("public_key", pem)]).status == 303)
            let again = try await browser.post(location + "/keys", [("csrf", csrf), ("public_key", pem)])
            #expect(again.status == 409)
            let key = try #require(try await server.store.keys(ofProvider: providerID).first)
            let asJSON = try await browser.post(
                location + "/keys", [("csrf", csrf), ("public_key", "x")],
                headers: ["Accept": "application/json"])
            #expect(asJSON.status == 422 && asJSON.json["message"] is String)

            let keyPath = "/dashboard/keys/\(key.id.lowercased)"
            let providerField = ("provider", providerID.lowercased)
            #expect(try await browser.post(keyPath + "/status", [("csrf", csrf), providerField, ("status", "disabled")]).status == 303)
            #expect(try await server.store.key(id: key.id)?.status == .disabled)
            let unconfirmed = try await browser.post(keyPath + "/delete", [("csrf", csrf), providerField])
            #expect(unconfirmed.status == 422)
            #expect(try await server.store.key(id: key.id)?.status == .disabled)
            #expect(try await browser.post(keyPath + "/delete", [("csrf", csrf), providerField, ("confirm", "yes")]).status == 303)
            #expect(try await server.store.key(id: key.id)?.status == .deleted)
            let tombstone = try await browser.post(keyPath + "/status", [("csrf", csrf), providerField, ("status", "active")])
            #expect(tombstone.status == 409)
        }
    }

    @Test("registration secrets: shown once on creation, then listed without the secret, revoked with a grace period")
    func secrets() async throws {
        try await signedIn { server, browser, csrf in
            let app = AppRecord(id: UUID(), name: "Chat", sessionTTLSeconds: 3600, createdAt: server.clock.now)
            try await server.store.createApp(app)
            let path = "/dashboard/apps/\(app.id.lowercased)/secrets"
            let created = try await browser.post(path, [("csrf", csrf)])
            #expect(created.status == 201)
            let stored = try #require(try await server.store.registrationSecrets(appID: app.id).first)
            let secret = Data(stored.secret).base64EncodedString()
            #expect(created.text.contains(secret))
            let listed = try await browser.get(path)
            #expect(listed.text.contains(stored.applicationKey.lowercased) && !listed.text.contains(secret))

            let revokePath = "\(path)/\(stored.applicationKey.lowercased)/revoke"
            #expect(try await browser.post(revokePath, [("csrf", csrf), ("grace_seconds", "9999999")]).status == 422)
            #expect(try await browser.post(revokePath, [("csrf", csrf), ("grace_seconds", "60")]).status == 303)
            let revoked = try await server.store.registrationSecret(applicationKey: stored.applicationKey)
            #expect(revoked?.revokedAt == server.clock.now + 60)
            #expect(try await browser.get(path).text.contains("retiring"))
        }
    }
}
