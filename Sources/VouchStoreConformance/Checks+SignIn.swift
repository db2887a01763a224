import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Sign-in

extension StoreConformance {
    func serverNonceSignIn() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let nonceHash = randomBytes()
            let profile = IdentityProfile(
                displayName: "Ada L.", firstName: "Ada", lastName: nil,
                avatarURL: "https://example.com/ada.png")
            let first = newSession(
                app: app.id, user: "ada", profile: profile,
                nonce: .serverNonce(hash: nonceHash, expiresAt: t0 + 600))

            let user = try await store.createSession(first)
            #expect(user == UserRecord(appID: app.id, userID: "ada", profile: profile, suspended: false))
            #expect(try await store.user(appID: app.id, userID: "ada") == user)
            #expect(
                try await store.session(tokenHash: first.tokenHash)
                    == SessionRecord(
                        tokenHash: first.tokenHash, appID: app.id, userID: "ada",
                        createdAt: t0, expiresAt: t0 + 3600, sessionID: first.sessionID))
            #expect(try await store.serverNonceUsed(hash: nonceHash, expiresAt: t0 + 600))
            #expect(try await store.serverNonceUsed(hash: randomBytes(), expiresAt: t0 + 600) == false)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "ada", now: t0) == 1)

            // The same nonce again, for the same user and for a new one: refused, nothing written.
            let sameUser = newSession(
                app: app.id, user: "ada", profile: IdentityProfile(displayName: "Changed"),
                nonce: .serverNonce(hash: nonceHash, expiresAt: t0 + 600))
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(sameUser) }
            let newUser = newSession(
                app: app.id, user: "bob", profile: IdentityProfile(displayName: "Bob"),
                nonce: .serverNonce(hash: nonceHash, expiresAt: t0 + 600))
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(newUser) }

            #expect(try await store.session(tokenHash: sameUser.tokenHash) == nil)
            #expect(try await store.session(tokenHash: newUser.tokenHash) == nil)
            #expect(try await store.user(appID: app.id, userID: "ada") == user)
            #expect(try await store.user(appID: app.id, userID: "bob") == nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "ada", now: t0) == 1)
        }
    }

    func registrationNonceSignIn() async throws {
        try await withStore { store in
            let a = try await store.addApp()
            let b = try await store.addApp()
            let expiry = t0 + 300
            func signIn(_ app: UUID, at now: Int64, expiresAt: Int64 = expiry) -> NewSession {
                newSession(
                    app: app, user: "u", createdAt: now,
                    nonce: .registrationNonce(appID: app, nonce: "n-1", expiresAt: expiresAt))
            }

            _ = try await store.createSession(signIn(a.id, at: t0))
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: t0))
            // Seen up to and including its expiry second, free after.
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: expiry))
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: expiry + 1) == false)
            #expect(try await store.registrationNonceSeen(appID: b.id, nonce: "n-1", now: t0) == false)
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-2", now: t0) == false)

            // Before (and at) its expiry the nonce is taken; nothing of the refused sign-in stays.
            let early = signIn(a.id, at: t0 + 100)
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(early) }
            let atExpiry = signIn(a.id, at: expiry)
            await #expect(throws: StoreError.nonceAlreadyUsed) { try await store.createSession(atExpiry) }
            #expect(try await store.session(tokenHash: early.tokenHash) == nil)
            #expect(try await store.session(tokenHash: atExpiry.tokenHash) == nil)

            // Unique per app only.
            let otherApp = signIn(b.id, at: t0 + 100)
            _ = try await store.createSession(otherApp)
            #expect(try await store.session(tokenHash: otherApp.tokenHash) != nil)

            // Once expired it may be used again, with the new expiry.
            let reuse = signIn(a.id, at: expiry + 1, expiresAt: expiry + 600)
            _ = try await store.createSession(reuse)
            #expect(try await store.session(tokenHash: reuse.tokenHash) != nil)
            #expect(try await store.registrationNonceSeen(appID: a.id, nonce: "n-1", now: expiry + 600))
            // The first sign-in's session and the reuse's.
            #expect(try await store.activeSessionCount(appID: a.id, userID: "u", now: expiry + 1) == 2)
        }
    }

    func profileUpsert() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let full = IdentityProfile(
                displayName: "Old Name", firstName: "Old", lastName: "Name",
                avatarURL: "https://example.com/old.png")
            #expect(try await store.createSession(newSession(app: app.id, user: "u", profile: full)).profile == full)

            let partial = IdentityProfile(displayName: "New Name", firstName: nil, lastName: "Newer", avatarURL: nil)
            let merged = IdentityProfile(
                displayName: "New Name", firstName: "Old", lastName: "Newer",
                avatarURL: "https://example.com/old.png")
            #expect(try await store.createSession(newSession(app: app.id, user: "u", profile: partial)).profile == merged)

            #expect(try await store.createSession(newSession(app: app.id, user: "u")).profile == merged)
            // Claims that repeat what is stored change nothing (a backend may skip the write) ...
            #expect(try await store.createSession(newSession(app: app.id, user: "u", profile: partial)).profile == merged)
            // ... and one changed field among repeated ones is still written.
            var newAvatar = merged
            newAvatar.avatarURL = "https://example.com/new.png"
            let avatarOnly = IdentityProfile(displayName: "New Name", avatarURL: "https://example.com/new.png")
            #expect(try await store.createSession(newSession(app: app.id, user: "u", profile: avatarOnly)).profile == newAvatar)
            #expect(
                try await store.user(appID: app.id, userID: "u")
                    == UserRecord(appID: app.id, userID: "u", profile: newAvatar, suspended: false))
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 5)
        }
    }

    func suspendedUserSignIn() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let suspended = try await store.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0)
            #expect(suspended == UserRecord(appID: app.id, userID: "u", profile: IdentityProfile(), suspended: true))

            let viaServerNonce = newSession(app: app.id, user: "u", profile: IdentityProfile(displayName: "X"))
            await #expect(throws: StoreError.userSuspended) { try await store.createSession(viaServerNonce) }
            let viaRegistration = newSession(
                app: app.id, user: "u", profile: IdentityProfile(firstName: "Y"),
                nonce: .registrationNonce(appID: app.id, nonce: "r", expiresAt: t0 + 300))
            await #expect(throws: StoreError.userSuspended) { try await store.createSession(viaRegistration) }

            // Nothing written: no session, nonce still unused, profile untouched.
            #expect(try await store.session(tokenHash: viaServerNonce.tokenHash) == nil)
            #expect(try await store.session(tokenHash: viaRegistration.tokenHash) == nil)
            guard case .serverNonce(let use) = viaServerNonce.nonce else {
                Issue.record("fixture should use a server nonce")
                return
            }
            #expect(try await store.serverNonceUsed(hash: use.hash, expiresAt: use.expiresAt) == false)
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "r", now: t0) == false)
            #expect(try await store.user(appID: app.id, userID: "u") == suspended)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 0)
        }
    }

    func failedSignInRollsBack() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let first = newSession(app: app.id, user: "u")
            _ = try await store.createSession(first)
            let original = try await store.session(tokenHash: first.tokenHash)

            // A token hash in use: the nonce and the new user must not stay behind.
            let nonce = randomBytes()
            let clash = newSession(
                app: app.id, user: "other", token: first.tokenHash, createdAt: t0 + 1,
                nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600))
            await #expect(throws: StoreError.alreadyExists) { try await store.createSession(clash) }
            #expect(try await store.serverNonceUsed(hash: nonce, expiresAt: t0 + 600) == false)
            #expect(try await store.user(appID: app.id, userID: "other") == nil)
            #expect(try await store.session(tokenHash: first.tokenHash) == original)

            // An unknown app: not found, and again no trace of the nonce.
            let unknownApp = UUID()
            let nowhere = newSession(app: unknownApp, user: "u", nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600))
            await #expect(throws: StoreError.notFound) { try await store.createSession(nowhere) }
            #expect(try await store.serverNonceUsed(hash: nonce, expiresAt: t0 + 600) == false)
            #expect(try await store.session(tokenHash: nowhere.tokenHash) == nil)

            // The nonce is still good for a proper sign-in.
            _ = try await store.createSession(newSession(app: app.id, user: "u", nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600)))
            #expect(try await store.serverNonceUsed(hash: nonce, expiresAt: t0 + 600))
        }
    }

    func concurrentSignInsWithOneNonce() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let nonce = NonceClaim.serverNonce(hash: randomBytes(), expiresAt: t0 + 600)
            let attempts = (0..<20).map { newSession(app: app.id, user: "user-\($0)", nonce: nonce) }

            let outcomes = await withTaskGroup(of: Result<UserRecord, StoreError>.self) { group in
                for attempt in attempts {
                    group.addTask {
                        do {
                            return .success(try await store.createSession(attempt))
                        } catch let error as StoreError {
                            return .failure(error)
                        } catch {
                            return .failure(.unavailable("unexpected \(type(of: error))"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }

            let winners = outcomes.compactMap { try? $0.get() }
            let failures = outcomes.compactMap { outcome -> StoreError? in
                if case .failure(let error) = outcome { return error }
                return nil
            }
            #expect(winners.count == 1)
            #expect(failures == Array(repeating: StoreError.nonceAlreadyUsed, count: 19))

            // Exactly one user and one session exist, the winner's.
            var users = 0
            var sessions = 0
            for attempt in attempts {
                if try await store.user(appID: app.id, userID: attempt.userID) != nil { users += 1 }
                if try await store.session(tokenHash: attempt.tokenHash) != nil { sessions += 1 }
            }
            #expect(users == 1)
            #expect(sessions == 1)
            if let winner = winners.first {
                #expect(try await store.activeSessionCount(appID: app.id, userID: winner.userID, now: t0) == 1)
            }
        }
    }
}
