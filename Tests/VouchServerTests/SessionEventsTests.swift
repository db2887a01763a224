import Foundation
import Testing
import VouchProtocol
import VouchTestSupport

/// `GET /events` and its filter `GET /events/sessions` over real HTTP (PROTOCOL §8.17): one app's
/// security events as server-sent events, for its services, resumable by each event's `id`.
@Suite("Event streams: a service hears its app's security events, resumably")
struct SessionEventsTests {
    /// Moves the server's hand-moved clock more than ten minutes past the machine's: the fixture's
    /// key status changes are stamped with the machine's clock, which ran on meanwhile.
    static func skipReplayWindow(_ server: LiveServer) {
        server.clock.advance(by: max(Int64(Date().timeIntervalSince1970), server.clock.now) - server.clock.now + 601)
    }

    @Test("/events/sessions: revocation, sign-out, suspension (with its sessions) and cutoffs arrive; other apps' do not")
    func endingsArrive() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let service = try await IntrospectionTests.credential(server, app: fixture.appID)
            let stream = try await EventStreamReader(server: server, credential: service.text)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.contentType?.hasPrefix("text/event-stream") == true)

            let revoked = try await DeviceAPITests.signIn(fixture, user: "alice")
            _ = try await server.request(.DELETE, "/sessions/\(revoked.token)")
            let first = try await stream.next()
            #expect(first.name == "session.ended" && first.json["type"] as? String == "session.ended")
            #expect(first.members["session_id"] as? String == revoked.id && first.json["user_id"] as? String == "alice")
            #expect(first.members["kind"] as? String == "revoked" && first.members["actor"] as? String == "user")
            #expect(first.json["app_id"] as? String == app)
            #expect(first.id.flatMap { Int($0) } != nil, "the event's cursor")
            #expect(first.json["id"] is String && first.json["time"] is String)

            let phone = try await DeviceAPITests.signIn(fixture, user: "bob")
            let laptop = try await DeviceAPITests.signIn(fixture, user: "bob")
            _ = try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: AccessTokenTests.bearer(laptop.token))
            let signedOut = try await stream.next()
            #expect(signedOut.members["kind"] as? String == "signed_out" && signedOut.members["session_id"] as? String == phone.id)

            let one = try await DeviceAPITests.signIn(fixture, user: "carol")
            let two = try await DeviceAPITests.signIn(fixture, user: "carol")
            _ = try await server.request(.PATCH, "/admin/apps/\(app)/users/carol", body: #"{"suspended":true}"#, admin: true)
            let suspended = try await stream.next()
            #expect(suspended.name == "user.suspended" && suspended.json["user_id"] as? String == "carol")
            #expect(Set(suspended.members["ended_session_ids"] as? [String] ?? []) == [one.id, two.id])
            let each = [try await stream.next(), try await stream.next()]
            #expect(Set(each.compactMap { $0.members["session_id"] as? String }) == [one.id, two.id])
            #expect(each.allSatisfy { $0.members["kind"] as? String == "suspended" })

            _ = try await server.post("/admin/apps/\(app)/cutoff", ["reason": "rotation drill"], admin: true)
            let cutoff = try await stream.next()
            #expect(cutoff.name == "cutoff.set" && cutoff.members["scope"] as? String == "app")
            #expect(cutoff.members["generation"] as? Int == 1 && cutoff.members["reason"] as? String == "rotation drill")

            _ = try await server.post("/admin/providers/\(Fixture.bare(fixture.providerID))/cutoff", [:], admin: true)
            let provider = try await stream.next()
            #expect(provider.members["scope"] as? String == "provider")
            #expect(provider.members["provider_id"] as? String == Fixture.bare(fixture.providerID))

            // Another app's ending, a provider not bound to this app, a key's status: nothing here.
            _ = try await server.post("/admin/apps/\(Fixture.bare(fixture.otherAppID))/cutoff", [:], admin: true)
            _ = try await server.post("/admin/providers/\(Fixture.bare(fixture.unboundProviderID))/cutoff", [:], admin: true)
            _ = try await server.request(.PATCH, "/admin/keys/\(Fixture.bare(fixture.activeKey.id))", body: #"{"status":"disabled"}"#, admin: true)
            _ = try await server.post("/admin/keys/\(Fixture.bare(fixture.activeKey.id))/cutoff", [:], admin: true)
            let key = try await stream.next()
            #expect(key.members["scope"] as? String == "key", "the other events were skipped: \(key.data)")
        }
    }

    @Test("/events: every kind the outbox writes, filtered by ?types=; session.created only while a webhook asks for it")
    func everyKind() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let service = try await IntrospectionTests.credential(server, app: fixture.appID)
            // Past the ten minutes a new stream replays: the fixture's own key events stay behind.
            Self.skipReplayWindow(server)
            let all = try await EventStreamReader(server: server, credential: service.text, path: "/events")
            let keys = try await EventStreamReader(server: server, credential: service.text, path: "/events", query: "?types=key.disabled,key.enabled")
            defer {
                all.close()
                keys.close()
            }
            _ = try await DeviceAPITests.signIn(fixture, user: "alice")
            let key = "/admin/keys/\(Fixture.bare(fixture.activeKey.id))"
            _ = try await server.request(.PATCH, key, body: #"{"status":"disabled"}"#, admin: true)
            _ = try await server.request(.PATCH, key, body: #"{"status":"active"}"#, admin: true)
            _ = try await server.request(.PATCH, "/admin/apps/\(app)/users/dave", body: #"{"suspended":true}"#, admin: true)
            _ = try await server.request(.PATCH, "/admin/apps/\(app)/users/dave", body: #"{"suspended":false}"#, admin: true)
            let heard = [try await all.next(), try await all.next(), try await all.next(), try await all.next()]
            #expect(heard.map(\.name) == ["key.disabled", "key.enabled", "user.suspended", "user.unsuspended"], "no session.created")
            #expect(heard[0].json["user_id"] == nil && heard[0].members["key_id"] as? String == Fixture.bare(fixture.activeKey.id))
            #expect([try await keys.next().name, try await keys.next().name] == ["key.disabled", "key.enabled"])
            #expect(await keys.nothing(within: 0.5))

            let hook = try await server.post(
                "/admin/apps/\(app)/webhooks", ["url": "https://93.184.215.14/vouch", "events": ["session.created"]], admin: true)
            #expect(hook.status == 201)
            let signedIn = try await DeviceAPITests.signIn(fixture, user: "erin", device: ["name": "Erin's phone"])
            let created = try await all.next()
            #expect(created.name == "session.created" && created.members["session_id"] as? String == signedIn.id)
            #expect((created.members["device"] as? [String: Any])?["name"] as? String == "Erin's phone")
        }
    }

    @Test("Last-Event-ID resumes after that event; without it, the last ten minutes are replayed; refusals are clear")
    func resuming() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let service = try await IntrospectionTests.credential(server, app: fixture.appID)
            var sessions: [(token: String, id: String)] = []
            for user in ["a", "b", "c"] {
                let session = try await DeviceAPITests.signIn(fixture, user: user)
                _ = try await server.request(.DELETE, "/sessions/\(session.token)")
                sessions.append(session)
            }
            let replay = try await EventStreamReader(server: server, credential: service.text)
            let replayed = [try await replay.next(), try await replay.next(), try await replay.next()]
            replay.close()
            #expect(replayed.map { $0.members["session_id"] as? String } == sessions.map(\.id))

            let resumed = try await EventStreamReader(server: server, credential: service.text, lastEventID: replayed[0].id)
            #expect(try await resumed.next().members["session_id"] as? String == sessions[1].id)
            #expect(try await resumed.next().members["session_id"] as? String == sessions[2].id)
            resumed.close()

            // Events older than ten minutes are not replayed to a stream that names no event.
            Self.skipReplayWindow(server)
            let late = try await EventStreamReader(server: server, credential: service.text)
            #expect(await late.nothing(within: 0.5))
            late.close()

            #expect(try await EventStreamReader(server: server, credential: service.text, lastEventID: "-1").status == 400)
            #expect(try await EventStreamReader(server: server, credential: service.text, lastEventID: "1.2.3").status == 400)
            #expect(try await EventStreamReader(server: server, credential: "vsc_nope").status == 401)
            for query in ["?types=nope", "?types=session.ended,session.ended", "?types="] {
                #expect(try await EventStreamReader(server: server, credential: service.text, path: "/events", query: query).status == 422, "\(query)")
            }
        }
    }
}
