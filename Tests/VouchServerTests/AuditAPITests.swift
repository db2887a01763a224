import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTestSupport

@Suite("Audit log and key last-verified (PROTOCOL §8) over real HTTP")
struct AuditAPITests {
    /// An event flattened for comparisons: the rejected sign-in's reason read as its outcome.
    struct Entry: Equatable {
        let id: Int64, at: String, kind: String, actor: String?, action: String, outcome: String
        let appID: String?, objectType: String?, objectID: String?, count: Int64

        init(_ event: AuditEventResponse) {
            (id, at, kind, actor, appID) = (event.id, event.at, event.kind, event.actor, event.appID)
            (action, outcome, count) = (event.detail.action, event.detail.outcome ?? event.detail.reason ?? "", event.detail.count)
            (objectType, objectID) = (event.object?.type, event.object?.id)
        }
    }

    /// Every page of `GET /admin/audit` with `query`, oldest entry first.
    static func allEntries(_ server: LiveServer, _ query: String = "") async throws -> [Entry] {
        var entries: [Entry] = []
        var cursor: String?
        repeat {
            let separator = query.isEmpty ? "" : "&"
            let path = "/admin/audit?limit=200" + separator + query + (cursor.map { "&before=\($0)" } ?? "")
            let answer = try await server.request(.GET, path, admin: true)
            guard answer.status == 200 else { throw TestFailure("GET \(path) answered \(answer.status): \(answer.text)") }
            let page = try answer.decode(AuditPageResponse.self)
            entries += page.events.map(Entry.init)
            cursor = page.next
        } while cursor != nil
        return entries.reversed()
    }

    @Test("every state-changing admin request leaves one entry: who, what, on which object, the outcome")
    func adminActionsRecorded() async throws {
        try await LiveServer.run { server in
            let app = try await server.post("/admin/apps", ["name": "Chat"], admin: true).json["id"] as? String ?? ""
            let appUUID = Fixture.bare(app)
            _ = try await server.request(.PATCH, "/admin/apps/\(appUUID)", body: #"{"name":"Talk"}"#, admin: true)
            let provider = Fixture.bare(try await server.post("/admin/providers", ["name": "Backend"], admin: true).json["id"] as? String ?? "")
            #expect(try await server.request(.PUT, "/admin/providers/\(provider)/apps/\(appUUID)", admin: true).status == 204)
            #expect(try await server.request(.DELETE, "/admin/providers/\(provider)/apps/\(appUUID)", admin: true).status == 204)
            let key = Fixture.bare(try await Fixture.generateKey(server, provider: "layer:///providers/" + provider).id)
            _ = try await server.request(.PATCH, "/admin/keys/\(key)", body: #"{"status":"disabled"}"#, admin: true)
            _ = try await server.request(.PATCH, "/admin/keys/\(key)", body: #"{"status":"active"}"#, admin: true)
            #expect(try await server.request(.DELETE, "/admin/keys/\(key)", admin: true).status == 204)
            // Refusals are recorded with the error the client got.
            #expect(try await server.request(.PATCH, "/admin/keys/\(key)", body: #"{"status":"active"}"#, admin: true).status == 409)
            let unknown = UUID().uuidString.lowercased()
            #expect(try await server.request(.DELETE, "/admin/keys/\(unknown)", admin: true).status == 404)
            let secret = try await server.request(.POST, "/admin/apps/\(appUUID)/registration-secrets", admin: true)
            let applicationKey = secret.json["application_key"] as? String ?? ""
            _ = try await server.request(.POST, "/admin/apps/\(appUUID)/registration-secrets/\(applicationKey)/revoke", admin: true)
            _ = try await server.request(.PATCH, "/admin/apps/\(appUUID)/users/mallory%2F1", body: #"{"suspended":true}"#, admin: true)
            _ = try await server.request(.PATCH, "/admin/apps/\(appUUID)/users/mallory%2F1", body: #"{"suspended":false}"#, admin: true)
            _ = try await server.request(.DELETE, "/admin/apps/\(appUUID)/users/mallory%2F1/sessions", admin: true)
            // Reads and the validation tool change nothing and are not recorded.
            _ = try await server.request(.GET, "/admin/apps", admin: true)
            _ = try await server.request(.GET, "/admin/keys/\(key)", admin: true)
            _ = try await server.post("/admin/tools/validate-identity-token", ["identity_token": "x.y.z", "app_id": app], admin: true)
            // Nor is anything refused before authentication.
            _ = try await server.post("/admin/apps", ["name": "Intruder"])

            let entries = try await Self.allEntries(server)
            #expect(
                entries.map(\.action) == [
                    "app.create", "app.update", "provider.create", "provider.bind", "provider.unbind", "key.create",
                    "key.disable", "key.enable", "key.delete", "key.enable", "key.delete", "secret.create", "secret.revoke",
                    "user.suspend", "user.unsuspend", "user.revoke_sessions",
                ])
            #expect(entries.map(\.outcome) == Array(repeating: "ok", count: 9) + ["conflict", "not_found"] + Array(repeating: "ok", count: 5))
            #expect(entries.allSatisfy { $0.actor == "api" && $0.kind == "admin" && $0.count == 1 })
            #expect(entries.allSatisfy { Timestamp.parse($0.at) == server.clock.now })
            #expect(Set(entries.map(\.id)).count == entries.count)

            func object(_ index: Int) -> String { "\(entries[index].objectType ?? "-") \(entries[index].objectID ?? "-")" }
            #expect(object(0) == "app \(appUUID)")
            #expect(entries[0].appID == app)
            #expect(object(2) == "provider \(provider)")
            #expect(object(3) == "provider \(provider)")
            #expect(entries[3].appID == app)
            #expect(object(5) == "key \(key)")
            #expect(object(6) == "key \(key)")
            #expect(object(10) == "key \(unknown)")
            #expect(object(11) == "registration_secret \(applicationKey)")
            #expect(object(12) == "registration_secret \(applicationKey)")
            #expect(object(13) == "user mallory/1")
            #expect(entries[13].appID == app)

            // The admin token is never written anywhere in the log.
            let raw = try await server.request(.GET, "/admin/audit?limit=200", admin: true).text
            #expect(!raw.contains(LiveServer.adminToken))
        }
    }

    @Test("rejected sign-ins: counted per app and reason, a storm is one entry, the token never kept")
    func rejectedSignIns() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let before = try await Self.allEntries(server, "kind=sign_in_rejected")
            #expect(before.isEmpty)

            // A storm of one bad token (expired) against the app, a few of another kind elsewhere.
            let stale = server.clock.now - 3600
            let expired = try fixture.layerToken(claims: fixture.layerClaims(user: "attacker", nonce: try await server.nonce(), now: stale))
            for _ in 0..<40 {
                #expect(try await fixture.signIn(expired).status == 422)
            }
            // A user id no app would issue: refused, and not a byte of it kept.
            let hostile = try fixture.layerToken(
                claims: fixture.layerClaims(
                    user: "mallory\u{1B}[31m" + String(repeating: "x", count: 500),
                    nonce: try await server.nonce(), now: server.clock.now))
            #expect(try await fixture.signIn(hostile).status == 422)
            let forged = try fixture.layerToken(
                claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now),
                signedWith: fixture.unboundKey.privateKey)
            for _ in 0..<3 {
                #expect(try await fixture.signIn(forged, app: fixture.otherAppID).status == 422)
            }
            // A good sign-in is not an audit event.
            _ = try await fixture.signedInSession()

            // A flush may fall inside the storm (the tally is written every few seconds), so a
            // storm is one entry per flush interval: counted by the sum, never by entry count.
            let entries = try await Self.allEntries(server, "kind=sign_in_rejected")
            let byApp = Dictionary(grouping: entries) { $0.appID ?? "" }
            let storm = try #require(byApp[fixture.appID]?.filter { $0.outcome == "eit_expired" })
            #expect(storm.map(\.count).reduce(0, +) == 40)
            #expect(storm.count < 40, "rejections are tallied, not written one by one")
            for entry in storm {
                #expect(entry.action == "sign_in.rejected")
                #expect(entry.actor == nil)
                #expect(entry.objectID == nil)
            }
            let hostileEntries = try #require(byApp[fixture.appID]?.filter { $0.outcome != "eit_expired" })
            #expect(hostileEntries.map(\.count).reduce(0, +) == 1)
            let other = try #require(byApp[fixture.otherAppID])
            #expect(other.map(\.count).reduce(0, +) == 3)
            #expect(other.allSatisfy { $0.outcome != "eit_expired" })

            let raw = try await server.request(.GET, "/admin/audit?kind=sign_in_rejected", admin: true).text
            #expect(!raw.contains("attacker"))
            #expect(!raw.contains("mallory"))
            #expect(!raw.contains(expired))
            // Counted once: asking again writes nothing new.
            #expect(try await Self.allEntries(server, "kind=sign_in_rejected").count == entries.count)
            let metrics = try await server.request(.GET, "/metrics").text
            #expect(!metrics.contains("vouch_audit_dropped_total{kind=\"sign_in_rejected\"} 1"))
        }
    }

    @Test("filters and cursor paging; malformed parameters are refused naming the parameter")
    func filtersAndPaging() async throws {
        try await LiveServer.run { server in
            var apps: [String] = []
            for index in 0..<7 {
                apps.append(try await server.post("/admin/apps", ["name": "App \(index)"], admin: true).json["id"] as? String ?? "")
                server.clock.advance(by: 10)
            }
            let start = server.clock.now - 70
            _ = try await server.request(.PATCH, "/admin/apps/\(Fixture.bare(apps[2]))", body: #"{"name":"Renamed"}"#, admin: true)

            // Pages of three, newest first, each with a cursor until the last.
            var seen: [Int64] = []
            var cursor: String?
            var pages = 0
            repeat {
                let answer = try await server.request(
                    .GET, "/admin/audit?action=app.create&limit=3" + (cursor.map { "&before=\($0)" } ?? ""),
                    admin: true)
                let page = try answer.decode(AuditPageResponse.self)
                #expect(page.events.count <= 3)
                seen += page.events.map(\.id)
                cursor = page.next
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            // PROTOCOL §4's shape: every member present, absent values as null.
            let raw = try await server.request(.GET, "/admin/audit?limit=1", admin: true).json
            #expect(raw["next"] is String)
            let event = try #require((raw["events"] as? [[String: Any]])?.first)
            #expect(Set(event.keys) == ["id", "at", "kind", "actor", "object", "detail", "app_id"])
            #expect(event["object"] is [String: Any] && event["detail"] is [String: Any])
            #expect((event["detail"] as? [String: Any])?["reason"] is NSNull)
            let last = try await server.request(.GET, "/admin/audit?limit=200", admin: true).json
            #expect(last["next"] is NSNull)
            #expect(seen.count == 7)
            #expect(seen == seen.sorted(by: >))

            let forApp = try await Self.allEntries(server, "app_id=\(apps[2])")
            #expect(forApp.map(\.action) == ["app.create", "app.update"])
            #expect(try await Self.allEntries(server, "object=\(Fixture.bare(apps[2]).uppercased())").count == 2)
            #expect(try await Self.allEntries(server, "kind=admin&action=app.update").count == 1)
            // `since` inclusive, `until` exclusive; RFC 3339 or Unix seconds.
            let window = "since=\(Timestamp.rfc3339(start + 20))&until=\(start + 40)"
            #expect(try await Self.allEntries(server, window).map(\.appID) == [apps[2], apps[3]])
            #expect(try await Self.allEntries(server, "since=\(server.clock.now + 1)").isEmpty)

            for (query, property) in [
                ("kind=bogus", "kind"), ("limit=0", "limit"), ("limit=201", "limit"), ("before=abc", "before"),
                ("before=-1", "before"), ("since=yesterday", "since"), ("until=2026-13-01T00:00:00Z", "until"),
                ("app_id=not-an-app", "app_id"), ("object=\(String(repeating: "o", count: 300))", "object"),
            ] {
                let answer = try await server.request(.GET, "/admin/audit?\(query)", admin: true)
                #expect((400..<500).contains(answer.status), "\(query): \(answer.status)")
                #expect(answer.data["property"] as? String == property, "\(query): \(answer.text)")
            }
            #expect(try await server.request(.GET, "/admin/audit").status == 403)
        }
    }

    @Test("a key's last_verified_at: absent until it verifies a sign-in, then that sign-in's time")
    func keyLastVerified() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let keyPath = "/admin/keys/\(Fixture.bare(fixture.activeKey.id))"
            #expect(try await server.request(.GET, keyPath, admin: true).json["last_verified_at"] == nil)

            server.clock.advance(by: 100)
            _ = try await fixture.signedInSession()
            let verifiedAt = Timestamp.rfc3339(server.clock.now)
            #expect(try await server.request(.GET, keyPath, admin: true).json["last_verified_at"] as? String == verifiedAt)
            let listed = try await server.request(.GET, "/admin/providers/\(Fixture.bare(fixture.providerID))/keys", admin: true).jsonArray
            #expect(listed.first { $0["id"] as? String == fixture.activeKey.id }?["last_verified_at"] as? String == verifiedAt)
            #expect(listed.filter { $0["last_verified_at"] != nil }.count == 1)

            // A rejected sign-in does not count; a Sinch sign-in involves no key.
            let stale = try fixture.layerToken(claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now - 3600))
            server.clock.advance(by: 3600)
            #expect(try await fixture.signIn(stale).status == 422)
            #expect(try await server.request(.GET, keyPath, admin: true).json["last_verified_at"] as? String == verifiedAt)
            _ = try await fixture.signedInSession()
            #expect(
                try await server.request(.GET, keyPath, admin: true).json["last_verified_at"] as? String
                    == Timestamp.rfc3339(server.clock.now))
        }
    }

    @Test("retention: the housekeeping purge drops entries older than the retention, keeps the rest")
    func retention() async throws {
        try await LiveServer.run { server in
            _ = try await server.post("/admin/apps", ["name": "Old"], admin: true)
            server.clock.advance(by: 89 * 86_400)
            _ = try await server.post("/admin/apps", ["name": "Newer"], admin: true)
            try await server.purges.purgeNow()
            #expect(try await Self.allEntries(server).count == 2)
            server.clock.advance(by: 2 * 86_400)
            try await server.purges.purgeNow()
            let kept = try await Self.allEntries(server)
            #expect(kept.count == 1)
            #expect(Timestamp.parse(kept.first?.at ?? "") == server.clock.now - 2 * 86_400)
        }
    }
}
