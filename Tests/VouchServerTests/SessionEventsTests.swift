import Foundation
import Testing
import VouchProtocol
import VouchTestSupport

/// `GET /events/sessions` over real HTTP (PROTOCOL §8.16): the log of endings as server-sent
/// events, for one app's services.
@Suite("Session events: a service hears every ending of its app's sessions, resumably")
struct SessionEventsTests {
    @Test("revocation, sign-out, suspension (with its sessions) and cutoffs arrive as events; other apps' do not")
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
            #expect(first.name == "session.ended")
            #expect(first.json["kind"] as? String == "revoked" && first.json["scope"] as? String == "session")
            #expect(first.json["sid"] as? String == revoked.id && first.json["sub"] as? String == "alice")
            #expect(first.json["app"] as? String == app)
            #expect(first.id == "\(first.json["position"] as? Int ?? -1)")

            let phone = try await DeviceAPITests.signIn(fixture, user: "bob")
            let laptop = try await DeviceAPITests.signIn(fixture, user: "bob")
            _ = try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: AccessTokenTests.bearer(laptop.token))
            let signedOut = try await stream.next()
            #expect(signedOut.json["kind"] as? String == "signed_out" && signedOut.json["sid"] as? String == phone.id)

            let one = try await DeviceAPITests.signIn(fixture, user: "carol")
            let two = try await DeviceAPITests.signIn(fixture, user: "carol")
            _ = try await server.request(.PATCH, "/admin/apps/\(app)/users/carol", body: #"{"suspended":true}"#, admin: true)
            let suspended = try await stream.next()
            #expect(suspended.json["kind"] as? String == "suspended" && suspended.json["scope"] as? String == "user")
            #expect(Set(suspended.json["sids"] as? [String] ?? []) == [one.id, two.id])

            _ = try await server.post("/admin/apps/\(app)/cutoff", ["reason": "rotation drill"], admin: true)
            let cutoff = try await stream.next()
            #expect(cutoff.json["kind"] as? String == "cut_off" && cutoff.json["scope"] as? String == "app")
            #expect(cutoff.json["generation"] as? Int == 1 && cutoff.json["reason"] as? String == "rotation drill")

            _ = try await server.post("/admin/providers/\(Fixture.bare(fixture.providerID))/cutoff", [:], admin: true)
            let provider = try await stream.next()
            #expect(provider.json["scope"] as? String == "provider")
            #expect(provider.json["provider_id"] as? String == Fixture.bare(fixture.providerID))

            // Another app's ending, and a provider not bound to this app: nothing for this stream.
            _ = try await server.post("/admin/apps/\(Fixture.bare(fixture.otherAppID))/cutoff", [:], admin: true)
            _ = try await server.post("/admin/providers/\(Fixture.bare(fixture.unboundProviderID))/cutoff", [:], admin: true)
            _ = try await server.post("/admin/keys/\(Fixture.bare(fixture.activeKey.id))/cutoff", [:], admin: true)
            let key = try await stream.next()
            #expect(key.json["scope"] as? String == "key", "the other app's entries were skipped: \(key.data)")
        }
    }

    @Test("Last-Event-ID resumes after the position; without it, the last ten minutes are replayed")
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
            #expect(replayed.map { $0.json["sid"] as? String } == sessions.map(\.id))

            let resumed = try await EventStreamReader(server: server, credential: service.text, lastEventID: replayed[0].id)
            #expect(try await resumed.next().json["sid"] as? String == sessions[1].id)
            #expect(try await resumed.next().json["sid"] as? String == sessions[2].id)
            resumed.close()

            // Entries older than ten minutes are not replayed to a stream that names no position.
            server.clock.advance(by: 601)
            let late = try await EventStreamReader(server: server, credential: service.text)
            #expect(await late.nothing(within: 0.5))
            late.close()

            #expect(try await EventStreamReader(server: server, credential: service.text, lastEventID: "-1").status == 400)
            #expect(try await EventStreamReader(server: server, credential: "vsc_nope").status == 401)
        }
    }
}
