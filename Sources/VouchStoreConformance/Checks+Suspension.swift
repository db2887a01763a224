import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Suspension and revocation

extension StoreConformance {
    func suspensionEndsSessions() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let profile = IdentityProfile(displayName: "U")
            let live1 = newSession(app: app.id, user: "u", profile: profile, expiresAt: t0 + 1000)
            let live2 = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let revoked = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let expired = newSession(app: app.id, user: "u", expiresAt: t0 + 10)
            let bystander = newSession(app: app.id, user: "v", expiresAt: t0 + 1000)
            for session in [live1, live2, revoked, expired, bystander] {
                _ = try await store.createSession(session)
            }
            try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 5)

            let suspended = try await store.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0 + 50)
            #expect(suspended == UserRecord(appID: app.id, userID: "u", profile: profile, suspended: true))
            #expect(try await store.user(appID: app.id, userID: "u")?.suspended == true)

            // Visible to the very next read.
            for live in [live1, live2] {
                let record = try await store.session(tokenHash: live.tokenHash)
                #expect(record?.endedAt == t0 + 50)
                #expect(record?.endReason == .userSuspended)
            }
            let revokedRecord = try await store.session(tokenHash: revoked.tokenHash)
            #expect(revokedRecord?.endedAt == t0 + 5)
            #expect(revokedRecord?.endReason == .revoked)
            let expiredRecord = try await store.session(tokenHash: expired.tokenHash)
            #expect(expiredRecord?.endedAt == nil)
            #expect(expiredRecord?.endReason == nil)
            #expect(try await store.session(tokenHash: bystander.tokenHash)?.endedAt == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 50) == 0)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "v", now: t0 + 50) == 1)

            // A later revocation does not overwrite the first reason.
            try await store.revokeSession(tokenHash: live1.tokenHash, now: t0 + 60)
            #expect(try await store.session(tokenHash: live1.tokenHash)?.endReason == .userSuspended)

            // Unsuspending lets the user in again, but ended sessions stay ended.
            let restored = try await store.setSuspended(appID: app.id, userID: "u", suspended: false, now: t0 + 70)
            #expect(restored == UserRecord(appID: app.id, userID: "u", profile: profile, suspended: false))
            #expect(try await store.session(tokenHash: live2.tokenHash)?.endReason == .userSuspended)
            _ = try await store.createSession(newSession(app: app.id, user: "u", createdAt: t0 + 80, expiresAt: t0 + 1000))
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 80) == 1)
        }
    }

    /// A suspended user's sign-in is refused without writing anything, and a used nonce outranks
    /// the suspension (§5.4 #21 before #23): the sign-in's verification leaves both to this
    /// transaction.
    func suspendedSignInWritesNothing() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let used = NonceClaim.serverNonce(hash: randomBytes(), expiresAt: t0 + 600)
            _ = try await store.createSession(newSession(app: app.id, user: "other", nonce: used))
            _ = try await store.setSuspended(appID: app.id, userID: "mallory", suspended: true, now: t0)

            await #expect(throws: StoreError.nonceAlreadyUsed) {
                try await store.createSession(newSession(app: app.id, user: "mallory", nonce: used))
            }
            let freshHash = randomBytes()
            let refused = newSession(app: app.id, user: "mallory", nonce: .serverNonce(hash: freshHash, expiresAt: t0 + 600))
            await #expect(throws: StoreError.userSuspended) { try await store.createSession(refused) }
            #expect(try await store.session(tokenHash: refused.tokenHash) == nil)
            #expect(
                try await !store.serverNonceUsed(hash: freshHash, expiresAt: t0 + 600),
                "the refusal recorded no use of its nonce")

            _ = try await store.setSuspended(appID: app.id, userID: "mallory", suspended: false, now: t0 + 1)
            _ = try await store.createSession(refused)
            #expect(try await store.session(tokenHash: refused.tokenHash) != nil, "the same nonce admits the sign-in once unsuspended")
        }
    }

    func suspendUnknownUser() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            #expect(try await store.user(appID: app.id, userID: "ghost") == nil)

            let ghost = try await store.setSuspended(appID: app.id, userID: "ghost", suspended: true, now: t0)
            #expect(ghost == UserRecord(appID: app.id, userID: "ghost", profile: IdentityProfile(), suspended: true))
            #expect(try await store.user(appID: app.id, userID: "ghost") == ghost)
            await #expect(throws: StoreError.userSuspended) {
                try await store.createSession(newSession(app: app.id, user: "ghost"))
            }

            let unsuspended = try await store.setSuspended(appID: app.id, userID: "new", suspended: false, now: t0)
            #expect(unsuspended == UserRecord(appID: app.id, userID: "new", profile: IdentityProfile(), suspended: false))

            await #expect(throws: StoreError.notFound) {
                try await store.setSuspended(appID: UUID(), userID: "ghost", suspended: true, now: t0)
            }
        }
    }

    func sessionLookup() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let otherApp = try await store.addApp()
            let profile = IdentityProfile(
                displayName: "U", firstName: "Ursula", lastName: "Le Guin",
                avatarURL: "https://example.com/u.png")
            let session = newSession(app: app.id, user: "u", profile: profile)
            _ = try await store.createSession(session)
            // The same user id in another app, suspended and named otherwise: not this session's user.
            _ = try await store.createSession(newSession(app: otherApp.id, user: "u", profile: IdentityProfile(displayName: "Other")))
            _ = try await store.setSuspended(appID: otherApp.id, userID: "u", suspended: true, now: t0 + 1)
            let found = try #require(try await store.sessionLookup(tokenHash: session.tokenHash))
            #expect(found.session == (try await store.session(tokenHash: session.tokenHash)))
            #expect(found.user == (try await store.user(appID: app.id, userID: "u")))
            #expect(found.user?.profile == profile)
            #expect(found.user?.suspended == false)
            _ = try await store.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0 + 1)
            let suspended = try await store.sessionLookup(tokenHash: session.tokenHash)
            #expect(suspended?.user?.suspended == true)
            #expect(suspended?.session.endReason == .userSuspended)
            #expect(try await store.sessionLookup(tokenHash: randomBytes()) == nil)
        }
    }

    func revocation() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let live1 = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let live2 = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let single = newSession(app: app.id, user: "u", expiresAt: t0 + 1000)
            let expired = newSession(app: app.id, user: "u", expiresAt: t0 + 10)
            let bystander = newSession(app: app.id, user: "v", expiresAt: t0 + 1000)
            for session in [live1, live2, single, expired, bystander] {
                _ = try await store.createSession(session)
            }

            try await store.revokeSession(tokenHash: single.tokenHash, now: t0 + 5)
            #expect(
                try await store.session(tokenHash: single.tokenHash)
                    == SessionRecord(
                        tokenHash: single.tokenHash, appID: app.id, userID: "u", createdAt: t0,
                        expiresAt: t0 + 1000, endedAt: t0 + 5, endReason: .revoked, sessionID: single.sessionID))
            // live1, live2, and `expired`, which only expires at t0 + 10.
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 5) == 3)

            #expect(try await store.revokeSessions(appID: app.id, userID: "u", now: t0 + 20) == 2)
            for live in [live1, live2] {
                let record = try await store.session(tokenHash: live.tokenHash)
                #expect(record?.endedAt == t0 + 20)
                #expect(record?.endReason == .revoked)
            }
            #expect(try await store.session(tokenHash: single.tokenHash)?.endedAt == t0 + 5)
            #expect(try await store.session(tokenHash: expired.tokenHash)?.endedAt == nil)
            #expect(try await store.session(tokenHash: bystander.tokenHash)?.endedAt == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 20) == 0)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "v", now: t0 + 20) == 1)

            // Again: nothing left to end, and ended sessions keep their first end.
            #expect(try await store.revokeSessions(appID: app.id, userID: "u", now: t0 + 30) == 0)
            try await store.revokeSession(tokenHash: single.tokenHash, now: t0 + 30)
            #expect(try await store.session(tokenHash: single.tokenHash)?.endedAt == t0 + 5)
            #expect(try await store.session(tokenHash: live1.tokenHash)?.endedAt == t0 + 20)
        }
    }

    func activeSessionCount() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            _ = try await store.createSession(newSession(app: app.id, user: "u", expiresAt: t0 + 100))
            _ = try await store.createSession(newSession(app: app.id, user: "u", expiresAt: t0 + 200))
            let ended = newSession(app: app.id, user: "u", expiresAt: t0 + 300)
            _ = try await store.createSession(ended)
            try await store.revokeSession(tokenHash: ended.tokenHash, now: t0 + 1)

            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 1) == 2)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 99) == 2)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 100) == 1)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0 + 200) == 0)
            #expect(try await store.activeSessionCount(appID: UUID(), userID: "u", now: t0) == 0)
        }
    }

}
