import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Races across two instances on one database
//
// Every store call below runs concurrently on two instances (two connections), as it would from
// two `vouch serve` processes behind a load balancer. A guarantee kept by a lock inside one
// instance fails here; only the database can keep it.

/// What one concurrent store call ended in; other errors are recorded by their description.
enum RaceOutcome<Value: Sendable>: Sendable {
    case success(Value)
    case storeError(StoreError)
    case otherError(String)

    var value: Value? { if case .success(let value) = self { value } else { nil } }
    var storeError: StoreError? { if case .storeError(let error) = self { error } else { nil } }

    static func of(_ body: () async throws -> Value) async -> RaceOutcome {
        do { return .success(try await body()) } catch let error as StoreError {
            return .storeError(error)
        } catch {
            return .otherError("\(error)")
        }
    }
}

/// Runs every operation concurrently and returns their outcomes in the order given.
func race<Value: Sendable>(_ operations: [@Sendable () async throws -> Value]) async -> [RaceOutcome<Value>] {
    await withTaskGroup(of: (Int, RaceOutcome<Value>).self) { group in
        for (index, operation) in operations.enumerated() {
            group.addTask { (index, await RaceOutcome.of(operation)) }
        }
        var outcomes = [RaceOutcome<Value>?](repeating: nil, count: operations.count)
        for await (index, outcome) in group { outcomes[index] = outcome }
        return outcomes.map { $0! }
    }
}

extension StoreConformance {
    func raceOneNonceTwoInstances() async throws {
        try await raceOneNonce(.serverNonce(hash: randomBytes(), expiresAt: t0 + 600))
    }

    func raceRegistrationNonceTwoInstances() async throws {
        try await raceOneNonce(nil)
    }

    /// 32 sign-ins with one nonce, alternating between the instances: exactly one session.
    /// `nonce == nil` uses a Sinch registration nonce of the test's app.
    private func raceOneNonce(_ nonce: NonceClaim?) async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp()
            let claim = nonce ?? .registrationNonce(appID: app.id, nonce: "replayed-\(UUID())", expiresAt: t0 + 600)
            let attempts = (0..<32).map { newSession(app: app.id, user: "user-\($0)", nonce: claim) }
            let outcomes = await race(
                attempts.enumerated().map { index, attempt in
                    let store = stores[index % 2]
                    return { @Sendable in try await store.createSession(attempt) }
                })
            #expect(outcomes.compactMap(\.value).count == 1)
            #expect(outcomes.compactMap(\.storeError) == Array(repeating: .nonceAlreadyUsed, count: 31))

            var sessions = 0
            for attempt in attempts where try await stores[1].session(tokenHash: attempt.tokenHash) != nil {
                sessions += 1
            }
            #expect(sessions == 1)
        }
    }

    /// Sign-ins of one user race its suspension on the other instance. Once everything has
    /// returned, the user is suspended and no session of theirs is live: a sign-in either finished
    /// before the suspension (and was ended by it) or was refused.
    func raceSuspensionAgainstSignIns() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp()
            for round in 0..<8 {
                let user = "user-\(round)"
                _ = try await stores[0].createSession(newSession(app: app.id, user: user))
                let attempts = (0..<12).map { _ in newSession(app: app.id, user: user) }
                var operations: [@Sendable () async throws -> Bool] = attempts.enumerated().map { index, attempt in
                    let store = stores[index % 2]
                    return { @Sendable in
                        _ = try await store.createSession(attempt)
                        return true
                    }
                }
                let suspender = stores[round % 2]
                operations.insert(
                    { @Sendable in
                        _ = try await suspender.setSuspended(appID: app.id, userID: user, suspended: true, now: t0)
                        return false
                    }, at: 6)
                let outcomes = await race(operations)
                #expect(outcomes[6].value == false, "the suspension itself succeeds")
                let refused = outcomes.compactMap(\.storeError)
                #expect(refused.allSatisfy { $0 == .userSuspended }, "round \(round): \(refused)")
                #expect(outcomes.allSatisfy { $0.value != nil || $0.storeError != nil })

                for store in stores {
                    #expect(
                        try await store.activeSessionCount(appID: app.id, userID: user, now: t0) == 0,
                        "round \(round): a session outlived the suspension")
                }
                for attempt in attempts {
                    if let session = try await stores[1 - round % 2].session(tokenHash: attempt.tokenHash) {
                        #expect(session.endReason == .userSuspended)
                    }
                }
                #expect(try await stores[0].user(appID: app.id, userID: user)?.suspended == true)
            }
        }
    }

    /// A session that existed when `revokeSessions` started is ended by it, whatever sign-in runs
    /// meanwhile on the other instance; both instances agree on what is live afterwards.
    func raceRevocationAgainstSignIn() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp()
            for round in 0..<10 {
                let user = "user-\(round)"
                let before = newSession(app: app.id, user: user)
                _ = try await stores[0].createSession(before)
                let during = newSession(app: app.id, user: user)
                let outcomes = await race([
                    { @Sendable in try await stores[1].revokeSessions(appID: app.id, userID: user, now: t0) },
                    { @Sendable in
                        _ = try await stores[0].createSession(during)
                        return 0
                    },
                ])
                #expect(outcomes.allSatisfy { $0.value != nil }, "round \(round)")
                #expect(try await stores[0].session(tokenHash: before.tokenHash)?.endReason == .revoked)
                let duringLive = try await stores[1].session(tokenHash: during.tokenHash)?.endedAt == nil
                for store in stores {
                    #expect(try await store.activeSessionCount(appID: app.id, userID: user, now: t0) == (duringLive ? 1 : 0))
                }
                // A revocation of one session on one instance is seen by the other at once.
                try await stores[1].revokeSession(tokenHash: during.tokenHash, now: t0)
                #expect(try await stores[0].session(tokenHash: during.tokenHash)?.endedAt != nil)
            }
        }
    }

    /// Enables and disables race a deletion on the other instance: the key ends deleted, and every
    /// status change either happened before the deletion or was refused as a tombstone.
    func raceKeyStatusAgainstDeletion() async throws {
        try await withStores(2) { stores in
            let provider = try await stores[0].addProvider()
            for round in 0..<8 {
                let key = KeyRecord(
                    id: UUID(), providerID: provider.id, status: .active,
                    publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
                    fingerprint: "sha256:\(round)-\(UUID())", createdAt: t0)
                try await stores[0].createKey(key)
                var operations: [@Sendable () async throws -> KeyStatus] = (0..<12).map { index in
                    let store = stores[index % 2]
                    let status: KeyStatus = index % 3 == 0 ? .active : .disabled
                    return { @Sendable in try await store.setKeyStatus(id: key.id, to: status).status }
                }
                operations.insert(
                    { @Sendable in try await stores[round % 2].setKeyStatus(id: key.id, to: .deleted).status },
                    at: 6)
                let outcomes = await race(operations)
                #expect(outcomes[6].value == .deleted)
                #expect(outcomes.allSatisfy { $0.value != nil || $0.storeError == .tombstone }, "round \(round)")
                for store in stores {
                    #expect(try await store.key(id: key.id)?.status == .deleted, "round \(round): a deleted key came back")
                }
            }
        }
    }

    /// Two partial updates of different fields of one app, on two instances at once: both stay.
    func raceAppUpdates() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp(makeApp(name: "Start", ttl: 60))
            for round in 0..<16 {
                let name = "Name \(round)"
                let ttl = Int64(1000 + round)
                let outcomes = await race([
                    { @Sendable in try await stores[0].updateApp(id: app.id, name: name, sessionTTLSeconds: nil) },
                    { @Sendable in try await stores[1].updateApp(id: app.id, name: nil, sessionTTLSeconds: ttl) },
                ])
                #expect(outcomes.allSatisfy { $0.value != nil })
                let expected = AppRecord(id: app.id, name: name, sessionTTLSeconds: ttl, createdAt: app.createdAt)
                for store in stores {
                    #expect(try await store.app(id: app.id) == expected, "round \(round): an update was lost")
                }
            }
        }
    }

    /// Nothing an instance reads is cached: each change through one is what the other reads next.
    func changeSeenByOtherInstance() async throws {
        try await withStores(2) { stores in
            let (a, b) = (stores[0], stores[1])
            let app = try await a.addApp()
            #expect(try await b.app(id: app.id) == app)
            _ = try await b.updateApp(id: app.id, name: "Renamed", sessionTTLSeconds: 99)
            #expect(try await a.app(id: app.id)?.name == "Renamed")
            #expect(try await a.app(id: app.id)?.sessionTTLSeconds == 99)

            let provider = try await a.addProvider(apps: [app.id])
            let key = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active, publicKeyPEM: "pem",
                fingerprint: "sha256:seen", createdAt: t0)
            try await a.createKey(key)
            #expect(try await b.key(id: key.id)?.status == .active)
            _ = try await a.setKeyStatus(id: key.id, to: .disabled)
            #expect(try await b.key(id: key.id)?.status == .disabled)

            let session = newSession(app: app.id, user: "u")
            _ = try await a.createSession(session)
            #expect(try await b.session(tokenHash: session.tokenHash)?.endedAt == nil)
            _ = try await b.setSuspended(appID: app.id, userID: "u", suspended: true, now: t0)
            #expect(try await a.session(tokenHash: session.tokenHash)?.endReason == .userSuspended)

            let first = randomBytes()
            #expect(try await a.secret(named: "nonce", orInsert: first) == first)
            #expect(try await b.secret(named: "nonce", orInsert: randomBytes()) == first)
        }
    }
}
