import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Erasure and export

extension StoreConformance {
    static let erasureChecks: [Check] = [
        Check(name: "erasure: ends and forgets the sessions, forgets the user, pseudonymises the audit, tells user.deleted") {
            try await $0.erasureForgetsTheUser()
        },
        Check(name: "erasure: a later sign-in makes a new user, whose events wait for the old one's") {
            try await $0.erasureThenANewUser()
        },
        Check(name: "export: the user's row, sessions and events, and nothing of anyone else") {
            try await $0.userDataExport()
        },
    ]

    func erasureForgetsTheUser() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            try await store.createWebhookEndpoint(
                makeWebhookEndpoint(app: app.id, events: ["session.ended", "user.deleted"]), limit: 20)
            let live = [newSession(app: app.id, user: "ada"), newSession(app: app.id, user: "ada", createdAt: t0 + 1)]
            let revoked = newSession(app: app.id, user: "ada", createdAt: t0 + 2)
            for session in live + [revoked] { _ = try await store.createSession(session) }
            #expect(try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 5))
            let bob = newSession(app: app.id, user: "bob")
            _ = try await store.createSession(bob)
            _ = try await store.createSession(newSession(app: other.id, user: "ada"))
            try await store.createLiveTicket(LiveTicket(ticketHash: randomBytes(), sessionTokenHash: live[0].tokenHash, expiresAt: t0 + 30))
            try await store.appendAudit([
                NewAuditEntry(at: t0, kind: .admin, actor: "api", action: "user.update", outcome: "ok", appID: app.id, objectType: "user", objectID: "ada"),
                NewAuditEntry(
                    at: t0, kind: .user, actor: "user", action: "session.sign_out", outcome: "ok", appID: app.id, objectType: "user", objectID: "ada"),
                NewAuditEntry(at: t0, kind: .admin, actor: "api", action: "user.update", outcome: "ok", appID: app.id, objectType: "user", objectID: "bob"),
                NewAuditEntry(at: t0, kind: .admin, actor: "api", action: "user.update", outcome: "ok", appID: other.id, objectType: "user", objectID: "ada"),
            ])
            let logBefore = try await store.sessionEndings(after: 0, limit: 0).latestPosition

            let erasure = try await store.eraseUser(appID: app.id, userID: "ada", pseudonym: "erased-1", now: t0 + 10)
            #expect(erasure == UserErasure(pseudonym: "erased-1", sessionsEnded: 2, sessionsForgotten: 3, auditEntriesPseudonymised: 2))

            #expect(try await store.user(appID: app.id, userID: "ada") == nil)
            for session in live + [revoked] {
                #expect(try await store.session(tokenHash: session.tokenHash) == nil)
                #expect(try await store.sessionLookup(sessionID: session.sessionID) == nil)
            }
            #expect(try await store.userData(appID: app.id, userID: "ada") == nil)
            // Nobody else's: the other user, and the same id in another app.
            #expect(try await store.session(tokenHash: bob.tokenHash) != nil)
            #expect(try await store.user(appID: other.id, userID: "ada") != nil)

            // Each live session is logged as signed out, so every device forgets the user.
            let logged = try await store.sessionEndings(after: logBefore, limit: 10).entries
            #expect(logged.map(\.kind) == [.signedOut, .signedOut])
            #expect(
                Set(logged.map(\.scope))
                    == Set(live.map { SessionEndingScope.session($0.sessionID, appID: app.id, userID: "ada") }))

            let events = try await store.settledSecurityEvents(appID: app.id, count: 4)
            #expect(events.map(\.kind) == [.sessionEnded, .sessionEnded, .sessionEnded, .userDeleted])
            let deleted = try #require(events.last)
            #expect(deleted.userID == "ada")
            #expect(deleted.userSequence == 4, "after the revocation's and the two endings'")
            #expect(
                try JSONDecoder().decode(JSONValue.self, from: Data(deleted.data.utf8))
                    == .object(["pseudonym": "erased-1", "sessions_ended": .number(JSONNumber(Int64(2)))]))
            for ended in events.dropFirst().dropLast() {
                let fields = try JSONDecoder().decode(JSONValue.self, from: Data(ended.data.utf8)).objectValue
                #expect(fields?["kind"] == .string("signed_out"))
                #expect(fields?["actor"] == .string("operator"))
            }

            let audit = try await store.auditEntries(AuditQuery(limit: 100))
            #expect(audit.filter { $0.entry.objectID == "erased-1" }.count == 2)
            #expect(audit.filter { $0.entry.objectID == "ada" }.map(\.entry.appID) == [other.id])
            #expect(audit.contains { $0.entry.objectID == "bob" })

            await #expect(throws: StoreError.notFound) {
                _ = try await store.eraseUser(appID: app.id, userID: "ada", pseudonym: "erased-1", now: t0 + 11)
            }
            await #expect(throws: StoreError.notFound) {
                _ = try await store.eraseUser(appID: app.id, userID: "nobody", pseudonym: "erased-2", now: t0 + 11)
            }
        }
    }

    func erasureThenANewUser() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let hook = makeWebhookEndpoint(app: app.id, events: ["session.created", "user.deleted"])
            try await store.createWebhookEndpoint(hook, limit: 20)
            _ = try await store.createSession(newSession(app: app.id, user: "ada"))
            _ = try await store.setSuspended(appID: app.id, userID: "ada", suspended: true, now: t0 + 1)
            _ = try await store.eraseUser(appID: app.id, userID: "ada", pseudonym: "erased-1", now: t0 + 2)

            // The suspension went with the user: the same id signs in as a new user.
            let again = newSession(app: app.id, user: "ada", createdAt: t0 + 3)
            let user = try await store.createSession(again)
            #expect(user.suspended == false)
            #expect(try await store.userData(appID: app.id, userID: "ada")?.sessions.map(\.sessionID) == [again.sessionID])

            // The new user's numbering starts again, yet its first event waits for the old user's
            // last: an endpoint hears `user.deleted` before the new `session.created`.
            let events = try await store.settledSecurityEvents(appID: app.id, count: 5)
            #expect(events.map(\.kind) == [.sessionCreated, .userSuspended, .sessionEnded, .userDeleted, .sessionCreated])
            #expect(events.map(\.userSequence) == [1, 2, 3, 4, 1])
            var heard: [SecurityEventKind] = []
            for round in 0..<3 {
                let now = (t0 + 10) * 1_000 + Int64(round)
                let claimed = try await store.claimWebhookDeliveries(now: now, lease: 30_000, limit: 10)
                #expect(claimed.count == 1, "one of the user's events at a time")
                for delivery in claimed {
                    heard.append(delivery.delivery.event.kind)
                    try await store.finishWebhookAttempt(
                        WebhookAttempt(endpointID: hook.id, eventID: delivery.delivery.event.id, verdict: .delivered, outcome: "HTTP 200", at: now))
                }
            }
            #expect(heard == [.sessionCreated, .userDeleted, .sessionCreated])
        }
    }

    func userDataExport() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            #expect(try await store.userData(appID: app.id, userID: "ada") == nil)
            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: app.id, events: ["session.created"]), limit: 20)
            let device = DeviceDescription(name: "Ada's phone", platform: "iOS", appVersion: "2.1")
            let profile = IdentityProfile(displayName: "Ada L.", firstName: "Ada", lastName: "Lovelace", avatarURL: nil)
            let first = newSession(app: app.id, user: "ada", profile: profile, createdAt: t0, device: device)
            let second = newSession(app: app.id, user: "ada", profile: profile, createdAt: t0 + 5)
            _ = try await store.createSession(first)
            _ = try await store.createSession(second)
            _ = try await store.createSession(newSession(app: app.id, user: "bob"))
            #expect(try await store.revokeSession(tokenHash: first.tokenHash, now: t0 + 9))

            let export = try #require(try await store.userData(appID: app.id, userID: "ada"))
            #expect(export.user.userID == "ada")
            #expect(export.user.profile == profile)
            #expect(export.createdAt == t0)
            #expect(export.sessions.map(\.sessionID) == [second.sessionID, first.sessionID], "newest first, ended ones too")
            #expect(export.sessions.last?.device == device)
            #expect(export.sessions.last?.endReason == .revoked)
            #expect(export.events.map(\.kind) == [.sessionCreated, .sessionCreated, .sessionEnded], "the revocation's, written for anyone")
            #expect(export.events.allSatisfy { $0.userID == "ada" })
        }
    }
}
