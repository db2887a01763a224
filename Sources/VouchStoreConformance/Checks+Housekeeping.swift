import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Housekeeping and server secrets

extension StoreConformance {
    func purgeExpired() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let now = t0 + 1000
            let grace: Int64 = 100
            let farFuture = t0 + 100_000
            // Sessions that stay, each with a nonce that stays, so only the named rows may go.
            func keptSession(_ nonce: NonceClaim) -> NewSession {
                newSession(app: app.id, user: "u", expiresAt: farFuture, nonce: nonce)
            }
            func session(expiresAt: Int64) -> NewSession {
                newSession(
                    app: app.id, user: "u", expiresAt: expiresAt,
                    nonce: .serverNonce(hash: randomBytes(), expiresAt: farFuture))
            }

            let pastNonce = randomBytes(), edgeNonce = randomBytes(), futureNonce = randomBytes()
            let seeded = [
                keptSession(.serverNonce(hash: pastNonce, expiresAt: now - 1)),
                keptSession(.serverNonce(hash: edgeNonce, expiresAt: now)),
                keptSession(.serverNonce(hash: futureNonce, expiresAt: now + 1)),
                keptSession(.registrationNonce(appID: app.id, nonce: "past", expiresAt: now - 1)),
                keptSession(.registrationNonce(appID: app.id, nonce: "edge", expiresAt: now)),
            ]
            let old = session(expiresAt: now - grace - 1)
            let edge = session(expiresAt: now - grace)
            let recent = session(expiresAt: now - 1)
            let revoked = session(expiresAt: farFuture)
            for session in seeded + [old, edge, recent, revoked] {
                _ = try await store.createSession(session)
            }
            try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0)

            #expect(try await store.purgeExpired(now: now, sessionGraceSeconds: grace).total == 3)

            #expect(try await store.serverNonceUsed(hash: pastNonce, expiresAt: now - 1) == false)
            #expect(try await store.serverNonceUsed(hash: edgeNonce, expiresAt: now))
            #expect(try await store.serverNonceUsed(hash: futureNonce, expiresAt: now + 1))
            // Asked about an earlier moment, so that only the row's presence decides.
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "past", now: t0) == false)
            #expect(try await store.registrationNonceSeen(appID: app.id, nonce: "edge", now: t0))
            #expect(try await store.session(tokenHash: old.tokenHash) == nil)
            for kept in seeded + [edge, recent, revoked] {
                #expect(try await store.session(tokenHash: kept.tokenHash) != nil)
                if case .serverNonce(let use) = kept.nonce, use.hash != pastNonce {
                    #expect(try await store.serverNonceUsed(hash: use.hash, expiresAt: use.expiresAt))
                }
            }
            #expect(try await store.user(appID: app.id, userID: "u") != nil)
            #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: now) == 5)

            #expect(try await store.purgeExpired(now: now, sessionGraceSeconds: grace).total == 0)
        }
    }

    func liveSessionCount() async throws {
        try await withStore { store in
            #expect(try await store.liveSessionCount(now: t0) == 0)
            let first = try await store.addApp(), second = try await store.addApp()
            _ = try await store.createSession(newSession(app: first.id, user: "a", expiresAt: t0 + 100))
            _ = try await store.createSession(newSession(app: first.id, user: "b", expiresAt: t0 + 200))
            _ = try await store.createSession(newSession(app: second.id, user: "a", expiresAt: t0 + 300))
            let revoked = newSession(app: second.id, user: "c", expiresAt: t0 + 400)
            _ = try await store.createSession(revoked)
            try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 1)
            _ = try await store.createSession(newSession(app: second.id, user: "d", expiresAt: t0 + 400))
            _ = try await store.setSuspended(appID: second.id, userID: "d", suspended: true, now: t0 + 1)

            #expect(try await store.liveSessionCount(now: t0 + 1) == 3)
            #expect(try await store.liveSessionCount(now: t0 + 100) == 2)
            #expect(try await store.liveSessionCount(now: t0 + 299) == 1)
            #expect(try await store.liveSessionCount(now: t0 + 300) == 0)
        }
    }

    func secretFirstValueWins() async throws {
        try await withStore { store in
            let first = randomBytes()
            #expect(try await store.secret(named: "cookie", orInsert: first) == first)
            #expect(try await store.secret(named: "cookie", orInsert: randomBytes()) == first)
            let other = randomBytes(64)
            #expect(try await store.secret(named: "other", orInsert: other) == other)
            #expect(try await store.secret(named: "cookie", orInsert: other) == first)

            // Racing first inserts all end up with one and the same value, one of the candidates.
            let candidates = (0..<10).map { _ in randomBytes() }
            let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for candidate in candidates {
                    group.addTask { try await store.secret(named: "race", orInsert: candidate) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 10)
            #expect(Set(results).count == 1)
            #expect(results.first.map { candidates.contains($0) } == true)
        }
    }

    func ping() async throws {
        try await withStore { store in
            try await store.ping()
            try await store.ping()
        }
    }
}
