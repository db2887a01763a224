import Foundation
import Testing
import VouchLiveTestSupport
import VouchProtocol
import VouchStore
import VouchTestSupport

/// A user's erasure and export over real HTTP, with a real live-channel socket and a real webhook
/// receiver on 127.0.0.1: the export holds what the store holds; the erasure signs every device
/// out at once, refuses the tokens, tells `user.deleted` after each `session.ended`, leaves the
/// audit log naming a pseudonym, and a later sign-in makes a new user.
@Suite("User erasure and export", .serialized)
struct UserErasureTests {
    @Test("export, then erase: the socket hears signed_out, webhooks get user.deleted, the audit names a pseudonym, a new sign-in is a new user")
    func exportThenErase() async throws {
        try await WebhookReceiver.run { receiver in
            try await LiveServer.run(configure: WebhookDeliveryTests.quickRetries()) { server in
                let fixture = try await Fixture.make(server)
                _ = try await WebhookDeliveryTests.subscribe(
                    server, fixture, url: receiver.url("/ok"), events: ["session.created", "session.ended", "user.deleted"])
                WebhookDeliveryTests.catchUp(server)
                let app = Fixture.bare(fixture.appID)
                let user = "/admin/apps/\(app)/users/alice"
                let phone = try await DeviceAPITests.signIn(fixture, user: "alice", device: ["name": "Alice's phone"])
                let laptop = try await DeviceAPITests.signIn(fixture, user: "alice")
                let bob = try await DeviceAPITests.signIn(fixture, user: "bob")
                #expect(try await server.request(.PATCH, user, body: #"{"suspended": false}"#, admin: true).status == 200)
                let (socket, _) = try await LiveChannelTests.open(server, token: phone.token)

                let exported = try await server.request(.GET, user + "/export", admin: true)
                #expect(exported.status == 200, "\(exported.text)")
                let export = try exported.decode(UserExportResponse.self)
                #expect(export.user.userID == "alice" && !export.suspended)
                #expect(Set(export.sessions.map(\.sessionID)) == [phone.id, laptop.id])
                #expect(export.sessions.first { $0.sessionID == phone.id }?.device?.name == "Alice's phone")
                #expect(export.events.count == 2, "the two session.created events the outbox keeps")
                #expect(export.audit.map(\.detail.action) == ["user.unsuspend"])
                #expect(!exported.text.contains(bob.id), "nobody else's")
                #expect(!exported.text.contains(phone.token), "never a token")

                let erased = try await server.request(.DELETE, user, admin: true)
                #expect(erased.status == 200, "\(erased.text)")
                let erasure = try erased.decode(UserErasureResponse.self)
                #expect(erasure.userID == "alice" && erasure.sessionsEnded == 2 && erasure.sessionsForgotten == 2)
                #expect(erasure.pseudonym.hasPrefix("erased-") && erasure.pseudonym.count == 31)
                #expect(erasure.auditEntriesPseudonymised == 2, "the unsuspension and the export")

                // Every device forgets the user at once; their tokens are refused; bob is untouched.
                #expect(await socket.nextObject()?["type"] as? String == "signed_out")
                #expect(await socket.end() == .closed(code: 4004, reason: "signed_out"))
                for token in [phone.token, laptop.token] {
                    #expect(try await server.request(.GET, "/users/me", headers: DeviceAPITests.bearer(token)).status == 401)
                }
                #expect(try await server.request(.GET, "/users/me", headers: DeviceAPITests.bearer(bob.token)).status == 200)
                #expect(try await server.request(.GET, user, admin: true).status == 404)
                #expect(try await server.request(.GET, user + "/export", admin: true).status == 404)
                #expect(try await server.request(.DELETE, user, admin: true).status == 404)

                // The audit log keeps what happened, under the pseudonym only.
                let audit = try await AuditAPITests.allEntries(server)
                #expect(!audit.contains { $0.objectID == "alice" })
                let aboutErased = audit.filter { $0.objectID == erasure.pseudonym }
                #expect(Set(aboutErased.map(\.action)) == ["user.unsuspend", "user.export", "user.delete"])
                #expect(aboutErased.filter { $0.action == "user.delete" }.map(\.outcome) == ["ok", "not_found"])

                // Each session.ended, then user.deleted, in the user's order.
                do {
                    try await WebhookDeliveryTests.waitFor("user.deleted") {
                        receiver.received("/ok").contains { $0.eventType == "user.deleted" }
                    }
                } catch {
                    Issue.record("received: \(receiver.received("/ok").map { ($0.eventType ?? "-", $0.json["sequence"] ?? "-") })")
                    throw error
                }
                let alices = receiver.received("/ok").map(\.json).filter { $0["user_id"] as? String == "alice" }
                #expect(alices.map { $0["type"] as? String } == ["session.created", "session.created", "session.ended", "session.ended", "user.deleted"])
                #expect(alices.map { $0["sequence"] as? Int } == [1, 2, 3, 4, 5])
                let deleted = try #require(alices.last?["data"] as? [String: Any])
                #expect(deleted["pseudonym"] as? String == erasure.pseudonym && deleted["sessions_ended"] as? Int == 2)

                // A valid token makes a new user, who is erased under the same pseudonym.
                let again = try await DeviceAPITests.signIn(fixture, user: "alice")
                let status = try await server.request(.GET, user, admin: true).decode(UserStatusResponse.self)
                #expect(status.activeSessions == 1 && !status.suspended)
                let newExport = try await server.request(.GET, user + "/export", admin: true).decode(UserExportResponse.self)
                #expect(
                    newExport.sessions.map(\.sessionID) == [again.id] && newExport.audit.isEmpty,
                    "the old user's entries name the pseudonym; this export's own is written after it answers")
                let second = try await server.request(.DELETE, user, admin: true).decode(UserErasureResponse.self)
                #expect(second.pseudonym == erasure.pseudonym)
            }
        }
    }

    @Test("refusals: an unknown app or user, or a user id too long, is 404, and the audit names nobody")
    func refusals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            #expect(try await server.request(.DELETE, "/admin/apps/\(UUID().uuidString.lowercased())/users/alice", admin: true).status == 404)
            #expect(try await server.request(.DELETE, "/admin/apps/\(app)/users/nobody", admin: true).status == 404)
            #expect(try await server.request(.GET, "/admin/apps/\(app)/users/nobody/export", admin: true).status == 404)
            let long = String(repeating: "x", count: 300)
            #expect(try await server.request(.DELETE, "/admin/apps/\(app)/users/\(long)", admin: true).status == 404)
            let unauthenticated = try await server.request(.DELETE, "/admin/apps/\(app)/users/alice")
            #expect(unauthenticated.status == 403, "the admin token is required: \(unauthenticated.status) \(unauthenticated.text)")
            let audit = try await AuditAPITests.allEntries(server, "action=user.delete")
            #expect(!audit.contains { $0.objectID == "nobody" || $0.objectID == long }, "a refused erasure names no user either")
        }
    }
}
