import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Devices: every session is one

extension StoreConformance {
    func liveSessionsListing() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let phone = DeviceDescription(name: "Alice's phone", platform: "iOS 18.1", appVersion: "2.4")
            let first = newSession(app: app.id, user: "alice", createdAt: t0, keyID: nil, device: phone)
            let second = newSession(app: app.id, user: "alice", createdAt: t0 + 1)
            let expired = newSession(app: app.id, user: "alice", createdAt: t0, expiresAt: t0 + 5)
            let revoked = newSession(app: app.id, user: "alice", createdAt: t0)
            let someoneElse = newSession(app: app.id, user: "bob", createdAt: t0)
            for session in [first, second, expired, revoked, someoneElse] { _ = try await store.createSession(session) }
            try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 2)

            let listed = try await store.liveSessions(appID: app.id, userID: "alice", now: t0 + 10)
            #expect(listed.map(\.session.sessionID) == [first.sessionID, second.sessionID])
            #expect(listed.first?.session.device == phone)
            #expect(listed.last?.session.device == nil)
            #expect(listed.first?.session.lastSeenAt == t0)
            #expect(try await store.liveSessions(appID: app.id, userID: "nobody", now: t0).isEmpty)
            #expect(try await store.sessionLookup(sessionID: second.sessionID)?.session.tokenHash == second.tokenHash)
            #expect(try await store.sessionLookup(sessionID: UUID()) == nil)
        }
    }

    func endSessionByID() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let laptop = newSession(app: app.id, user: "alice")
            let phone = newSession(app: app.id, user: "alice")
            let bobs = newSession(app: app.id, user: "bob")
            for session in [laptop, phone, bobs] { _ = try await store.createSession(session) }

            // Another user's id, and an unknown one: nil, nothing changed.
            #expect(
                try await store.endSession(
                    sessionID: bobs.sessionID, owner: (app.id, "alice"), reason: .signedOut, now: t0 + 1) == nil)
            #expect(
                try await store.endSession(sessionID: UUID(), owner: (app.id, "alice"), reason: .signedOut, now: t0 + 1)
                    == nil)
            #expect(try await standing(store, bobs, at: t0 + 1) == .live)

            let found = try #require(
                try await store.endSession(sessionID: phone.sessionID, owner: (app.id, "alice"), reason: .signedOut, now: t0 + 1))
            #expect(found.standing(at: t0 + 1) == .live, "returned as it was found")
            #expect(try await standing(store, phone, at: t0 + 1) == .signedOut)
            #expect(try await standing(store, laptop, at: t0 + 1) == .live)
            // Again: found, already over, nothing changes (the first end stays).
            let again = try #require(
                try await store.endSession(sessionID: phone.sessionID, owner: (app.id, "alice"), reason: .revoked, now: t0 + 2))
            #expect(again.standing(at: t0 + 2) == .signedOut)
            #expect(try await store.session(tokenHash: phone.tokenHash)?.endedAt == t0 + 1)

            // An operator's ending (no owner) is a revocation.
            _ = try await store.endSession(sessionID: bobs.sessionID, owner: nil, reason: .revoked, now: t0 + 3)
            #expect(try await standing(store, bobs, at: t0 + 3) == .revoked)
        }
    }

    func signOutOthers() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let mine = newSession(app: app.id, user: "alice")
            let others = [newSession(app: app.id, user: "alice"), newSession(app: app.id, user: "alice")]
            let bobs = newSession(app: app.id, user: "bob")
            for session in [mine, bobs] + others { _ = try await store.createSession(session) }
            #expect(try await store.signOutOtherSessions(appID: app.id, userID: "alice", keeping: mine.tokenHash, now: t0 + 1) == 2)
            for other in others { #expect(try await standing(store, other, at: t0 + 1) == .signedOut) }
            #expect(try await standing(store, mine, at: t0 + 1) == .live)
            #expect(try await standing(store, bobs, at: t0 + 1) == .live)
            #expect(try await store.signOutOtherSessions(appID: app.id, userID: "alice", keeping: mine.tokenHash, now: t0 + 2) == 0)
        }
    }

    func lastSeenOncePerMinute() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let session = newSession(app: app.id, user: "alice")
            _ = try await store.createSession(session)
            func lastSeen() async throws -> Int64? { try await store.sessionLookup(tokenHash: session.tokenHash)?.session.lastSeenAt }
            try await store.markSessionSeen(tokenHash: session.tokenHash, now: t0 + 59)
            #expect(try await lastSeen() == t0, "within the minute: not written")
            try await store.markSessionSeen(tokenHash: session.tokenHash, now: t0 + 60)
            #expect(try await lastSeen() == t0 + 60)
            try await store.markSessionSeen(tokenHash: session.tokenHash, now: t0 + 10)
            #expect(try await lastSeen() == t0 + 60, "never backwards")
            try await store.revokeSession(tokenHash: session.tokenHash, now: t0 + 61)
            try await store.markSessionSeen(tokenHash: session.tokenHash, now: t0 + 500)
            #expect(try await lastSeen() == t0 + 60, "an ended session is left alone")
            try await store.markSessionSeen(tokenHash: randomBytes(), now: t0 + 500)
        }
    }
}
