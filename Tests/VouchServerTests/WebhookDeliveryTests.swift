import Foundation
import Testing
import VouchProtocol
import VouchStore

@testable import VouchServer

/// Deliveries over real HTTP on 127.0.0.1, from a real server's outbox to a real receiver: signed,
/// retried with the same id, in each user's order, bounded against receivers that misbehave, and
/// paused with a reason when they keep failing.
@Suite("Webhook deliveries")
struct WebhookDeliveryTests {
    /// Fast retries, so that a test sees many attempts in little time.
    static func quickRetries(window: Duration = .seconds(600)) -> (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.allowsLoopbackOutbound = true
            configuration.webhookDeliveries.firstRetryDelay = .milliseconds(20)
            configuration.webhookDeliveries.longestRetryDelay = .milliseconds(100)
            configuration.webhookDeliveries.retryWindow = window
            configuration.webhookDeliveries.pollInterval = .milliseconds(20)
        }
    }

    /// Registers an endpoint; returns its id and secret.
    static func subscribe(
        _ server: LiveServer, _ fixture: Fixture, url: String, events: [String] = ["session.created"]
    ) async throws -> (id: String, secret: String) {
        let made = try await server.post(
            "/admin/apps/\(Fixture.bare(fixture.appID))/webhooks", ["url": url, "events": events], admin: true)
        guard made.status == 201, let id = made.json["id"] as? String, let secret = made.json["secret"] as? String else {
            throw ProcessHarnessError("webhook creation answered \(made.status): \(made.text)")
        }
        return (id, secret)
    }

    /// The retry window runs from the event's time, on the server's clock: it is brought to the
    /// machine's, which moved on while the fixture made its keys (a minute, on a loaded machine).
    static func catchUp(_ server: LiveServer) {
        server.clock.advance(by: Int64(Date().timeIntervalSince1970) - server.clock.now)
    }

    @Test("a session that reaches its expiry unended is told as session.ended, kind expired, at its expires_at")
    func expiryTold() async throws {
        try await WebhookReceiver.run { receiver in
            try await LiveServer.run(configure: Self.quickRetries(window: .seconds(100_000_000))) { server in
                let fixture = try await Fixture.make(server)
                _ = try await Self.subscribe(server, fixture, url: receiver.url("/ok"), events: ["session.ended"])
                let app = "/admin/apps/\(Fixture.bare(fixture.appID))"
                #expect(try await server.request(.PATCH, app, body: #"{"session_ttl_seconds": 30}"#, admin: true).status == 200)
                // The session lives its 30 s on the server's clock 40 s behind the machine's, so
                // that its expiry is in the past of the delivery worker (the machine's clock).
                Self.catchUp(server)
                server.clock.advance(by: -40)
                try await server.purges.purgeNow()
                let session = try await DeviceAPITests.signIn(fixture, user: "alice")
                let status = try await server.request(.GET, "/users/me", headers: DeviceAPITests.bearer(session.token))
                let expiresAt = try #require((status.json["session"] as? [String: Any])?["expires_at"] as? String)
                server.clock.advance(by: 40)
                try await server.purges.purgeNow()
                try await Self.waitFor("the expiry") { receiver.received("/ok").contains { $0.eventType == "session.ended" } }
                let told = try #require(receiver.received("/ok").first { $0.eventType == "session.ended" }?.json)
                #expect((told["data"] as? [String: Any])?["kind"] as? String == "expired")
                #expect((told["data"] as? [String: Any])?["session_id"] as? String == session.id)
                #expect((told["data"] as? [String: Any])?["actor"] == nil)
                #expect(told["time"] as? String == expiresAt)
                try await server.purges.purgeNow()
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.received("/ok").filter { $0.eventType == "session.ended" }.count == 1, "told once")
            }
        }
    }

    static func waitFor(_ what: String, timeout: Duration = .seconds(20), _ condition: () -> Bool) async throws {
        guard await ProcessWait.eventually(timeout: timeout, condition) else { throw ProcessHarnessError("timed out waiting for \(what)") }
    }

    @Test("a receiver that answers 500 five times gets the event on the sixth try, with the same id, signed each time")
    func retriedUntilDelivered() async throws {
        try await WebhookReceiver.run(failures: 5) { receiver in
            try await LiveServer.run(configure: Self.quickRetries()) { server in
                let fixture = try await Fixture.make(server)
                let hook = try await Self.subscribe(server, fixture, url: receiver.url("/flaky"))
                Self.catchUp(server)
                _ = try await fixture.signIn(
                    try fixture.layerToken(claims: fixture.layerClaims(nonce: try await server.nonce(), now: server.clock.now)))
                try await Self.waitFor("six attempts") { receiver.received("/flaky").count >= 6 }

                let attempts = receiver.received("/flaky")
                let id = try #require(attempts.first?.eventID)
                #expect(attempts.allSatisfy { $0.eventID == id && $0.eventType == "session.created" })
                #expect(attempts.allSatisfy { $0.body == attempts[0].body }, "the same event, byte for byte")
                let now = Int64(Date().timeIntervalSince1970)
                for attempt in attempts {
                    let signature = try #require(attempt.signature)
                    #expect(WebhookSignature.verify(header: signature, body: attempt.body, secret: hook.secret, now: now))
                    #expect(!WebhookSignature.verify(header: signature, body: attempt.body + [0x20], secret: hook.secret, now: now))
                }
                let event = attempts[0].json
                #expect(event["id"] as? String == id)
                #expect(event["type"] as? String == "session.created")
                #expect(event["app_id"] as? String == Fixture.bare(fixture.appID))
                #expect(event["user_id"] as? String == "alice")
                #expect(event["sequence"] as? Int == 1)
                #expect(event["time"] as? String == Timestamp.rfc3339(server.clock.now))
                #expect((event["data"] as? [String: Any])?["session_id"] is String)

                let endpointID = try #require(UUID(uuidString: hook.id))
                let appID = try #require(UUID(uuidString: Fixture.bare(fixture.appID)))
                var delivered: WebhookDelivery?
                try await Self.waitForAsync("the delivery recorded") {
                    delivered = try? await server.store.webhookDeliveries(endpointID: endpointID, appID: appID, limit: 5).first
                    return delivered?.state == .delivered
                }
                #expect(delivered?.attempts == 6)
                #expect(delivered?.lastOutcome == "HTTP 200")
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.received("/flaky").count == 6, "nothing is sent once delivered")

                // The owner sees it, and a replay sends the same event again.
                let path = "/admin/apps/\(Fixture.bare(fixture.appID))/webhooks/\(hook.id)/deliveries"
                let listed = try await server.request(.GET, path, admin: true)
                let rows = try #require(listed.json["deliveries"] as? [[String: Any]])
                #expect(rows.count == 1)
                #expect(rows.first?["event_id"] as? String == id && rows.first?["state"] as? String == "delivered")
                #expect(rows.first?["attempts"] as? Int == 6 && rows.first?["last_outcome"] as? String == "HTTP 200")
                #expect(rows.first?["delivered_at"] is String && rows.first?["next_attempt_at"] == nil)
                #expect(try await server.request(.GET, path + "?limit=0", admin: true).status == 422)
                #expect(try await server.request(.POST, path + "/\(UUID().uuidString)/replay", admin: true).status == 404)
                let replayed = try await server.request(.POST, path + "/\(id)/replay", admin: true)
                #expect(replayed.status == 200 && replayed.json["state"] as? String == "pending", "\(replayed.text)")
                try await Self.waitFor("the replay") { receiver.received("/flaky").count == 7 }
                #expect(receiver.received("/flaky").last?.eventID == id)
                try await Self.waitForAsync("the replay recorded") {
                    (try? await server.request(.GET, path, admin: true).json["deliveries"] as? [[String: Any]])?.first?["attempts"] as? Int == 7
                }
                let audited = try await server.store.auditEntries(AuditQuery(limit: 50)).map(\.entry)
                #expect(audited.contains { $0.action == "webhook.replay" && $0.objectID == hook.id })
            }
        }
    }

    @Test("each user's events arrive in order: a later one waits while an earlier one is retried")
    func orderedPerUser() async throws {
        try await WebhookReceiver.run(failures: 2) { receiver in
            try await LiveServer.run(configure: Self.quickRetries()) { server in
                let fixture = try await Fixture.make(server)
                _ = try await Self.subscribe(server, fixture, url: receiver.url("/flaky"), events: ["session.created", "session.ended"])
                Self.catchUp(server)
                let session = try await fixture.signedInSession()
                #expect(try await server.request(.DELETE, "/sessions/\(session)").status == 204)
                try await Self.waitFor("both events delivered") {
                    receiver.received("/flaky").filter { $0.eventType == "session.ended" }.count >= 1
                }
                let seen = receiver.received("/flaky").map { ($0.json["sequence"] as? Int ?? 0, $0.eventType ?? "") }
                #expect(seen.map(\.0) == [1, 1, 1, 2], "the first event's two failures and success, then the second")
                #expect(seen.last?.1 == "session.ended")
            }
        }
    }

    @Test("a receiver that never answers or answers a gigabyte delays no other; one that keeps failing is paused with why")
    func misbehavingReceivers() async throws {
        try await WebhookReceiver.run { receiver in
            try await LiveServer.run(configure: Self.quickRetries(window: .seconds(5))) { server in
                let fixture = try await Fixture.make(server)
                _ = try await Self.subscribe(server, fixture, url: receiver.url("/hang"))
                _ = try await Self.subscribe(server, fixture, url: receiver.url("/huge"))
                let failing = try await Self.subscribe(server, fixture, url: receiver.url("/fail"))
                _ = try await Self.subscribe(server, fixture, url: receiver.url("/ok"))
                Self.catchUp(server)
                let signedIn = ContinuousClock.now
                _ = try await fixture.signedInSession()
                try await Self.waitFor("the good receiver's delivery", timeout: .seconds(5)) { !receiver.received("/ok").isEmpty }
                #expect(try #require(receiver.received("/ok").first).at - signedIn < .seconds(5), "not held behind the hanging receiver (10 s)")
                try await Self.waitFor("the hanging attempt", timeout: .seconds(5)) { receiver.received("/hang").count == 1 }
                #expect(try #require(receiver.received("/hang").first).at - signedIn < .seconds(5))

                let path = "/admin/apps/\(Fixture.bare(fixture.appID))/webhooks/\(failing.id)"
                try await Self.waitForAsync("the failing endpoint paused", timeout: .seconds(30)) {
                    (try? await server.request(.GET, path, admin: true).json["paused"] as? Bool) == true
                }
                let paused = try await server.request(.GET, path, admin: true)
                let reason = try #require(paused.json["pause_reason"] as? String)
                #expect(reason.contains("HTTP 500") && reason.contains("5 s"), "\(reason)")
                #expect(receiver.received("/fail").count >= 2, "retried before it was given up")
                let huge = try await server.request(.GET, "/admin/apps/\(Fixture.bare(fixture.appID))/webhooks", admin: true)
                let hugeEntry = (huge.json["webhooks"] as? [[String: Any]])?.first { ($0["url"] as? String)?.hasSuffix("/huge") == true }
                #expect(hugeEntry?["paused"] as? Bool == false, "a 200 with a gigabyte after it is delivered, its body left unread")
            }
        }
    }

    static func waitForAsync(_ what: String, timeout: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
        guard await ProcessWait.eventuallyAsync(timeout: timeout, condition) else {
            throw ProcessHarnessError("timed out waiting for \(what)")
        }
    }
}
