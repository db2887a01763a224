import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Cutoffs

extension StoreConformance {
    /// A catalogue for cutoffs: two apps, a provider bound to the first with two keys, a second
    /// provider with one key.
    struct CutoffCatalogue {
        let app: AppRecord
        let otherApp: AppRecord
        let provider: ProviderRecord
        let otherProvider: ProviderRecord
        let key: KeyRecord
        let secondKey: KeyRecord
        let otherKey: KeyRecord
    }

    func addCutoffCatalogue(_ store: any Store) async throws -> CutoffCatalogue {
        let app = try await store.addApp()
        let otherApp = try await store.addApp(makeApp(name: "Other"))
        let provider = try await store.addProvider(apps: [app.id, otherApp.id])
        let otherProvider = try await store.addProvider(apps: [app.id])
        func key(_ provider: ProviderRecord) async throws -> KeyRecord {
            let key = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active, publicKeyPEM: "pem",
                fingerprint: "sha256:" + UUID().uuidString, createdAt: t0)
            try await store.createKey(key)
            return key
        }
        return CutoffCatalogue(
            app: app, otherApp: otherApp, provider: provider, otherProvider: otherProvider,
            key: try await key(provider), secondKey: try await key(provider), otherKey: try await key(otherProvider))
    }

    /// A session opened with `key` (its provider recorded too), or with no key (Sinch).
    func signIn(
        _ store: any Store, app: UUID, user: String, key: KeyRecord?, at time: Int64 = t0
    ) async throws -> NewSession {
        let session = newSession(
            app: app, user: user, createdAt: time, expiresAt: time + 3600, keyID: key?.id, providerID: key?.providerID)
        _ = try await store.createSession(session)
        return session
    }

    func standing(_ store: any Store, _ session: NewSession, at now: Int64 = t0) async throws -> SessionStanding? {
        try await store.sessionLookup(tokenHash: session.tokenHash)?.standing(at: now)
    }

    func cutoffsAtEveryScope() async throws {
        try await withStore { store in
            let c = try await addCutoffCatalogue(store)
            #expect(try await store.cutoff(of: .app(c.app.id)) == .none)
            let aliceKey = try await signIn(store, app: c.app.id, user: "alice", key: c.key)
            let bobSecondKey = try await signIn(store, app: c.app.id, user: "bob", key: c.secondKey)
            let aliceOtherProvider = try await signIn(store, app: c.app.id, user: "alice", key: c.otherKey)
            let aliceOtherApp = try await signIn(store, app: c.otherApp.id, user: "alice", key: c.key)
            let carolSinch = try await signIn(store, app: c.app.id, user: "carol", key: nil)

            // A key: the sessions its tokens opened, in every app; none of the provider's others.
            #expect(try await store.liveSessionCount(of: .key(c.key.id), now: t0) == 2)
            let keyCut = try await store.cutOff(.key(c.key.id), reason: "key leaked", now: t0)
            #expect(keyCut.sessionsEnded == 2)
            #expect(keyCut.cutoff == ScopeCutoff(generation: 1, at: t0, reason: "key leaked"))
            #expect(try await store.cutoff(of: .key(c.key.id)) == keyCut.cutoff)
            #expect(try await standing(store, aliceKey) == .cutOff(.key, reason: "key leaked"))
            #expect(try await standing(store, aliceOtherApp) == .cutOff(.key, reason: "key leaked"))
            #expect(try await standing(store, bobSecondKey) == .live)
            // In the same second, after the cutoff: untouched.
            let aliceKeyAgain = try await signIn(store, app: c.app.id, user: "alice", key: c.key)
            #expect(try await standing(store, aliceKeyAgain) == .live)
            #expect(try await store.liveSessionCount(of: .key(c.key.id), now: t0) == 1)

            // A provider: every key's sessions, not those already cut off (counted once).
            let providerCut = try await store.cutOff(.provider(c.provider.id), reason: nil, now: t0 + 1)
            #expect(providerCut.sessionsEnded == 2)
            #expect(try await standing(store, bobSecondKey) == .cutOff(.provider, reason: nil))
            #expect(try await standing(store, aliceKeyAgain) == .cutOff(.provider, reason: nil))
            #expect(try await standing(store, aliceOtherProvider) == .live)

            // A user within an app: not the same user id in another app.
            let aliceThere = try await signIn(store, app: c.otherApp.id, user: "alice", key: c.secondKey, at: t0 + 2)
            #expect(try await store.activeSessionCount(appID: c.app.id, userID: "alice", now: t0 + 2) == 1, "cut-off sessions are not active")
            let userCut = try await store.cutOff(.user(appID: c.app.id, userID: "alice"), reason: "lost phone", now: t0 + 2)
            #expect(userCut.sessionsEnded == 1)
            #expect(try await standing(store, aliceOtherProvider) == .cutOff(.user, reason: "lost phone"))
            #expect(try await standing(store, aliceThere) == .live)
            #expect(try await store.user(appID: c.app.id, userID: "alice")?.cutoff.reason == "lost phone")
            #expect(try await store.activeSessionCount(appID: c.app.id, userID: "alice", now: t0 + 2) == 0)

            // An app: everything left in it, Sinch sessions included; not the other app's.
            let appCut = try await store.cutOff(.app(c.app.id), reason: "incident", now: t0 + 3)
            #expect(appCut.sessionsEnded == 1)
            #expect(try await standing(store, carolSinch) == .cutOff(.app, reason: "incident"))
            #expect(try await standing(store, aliceThere) == .live)
            #expect(try await store.liveSessionCount(of: .app(c.app.id), now: t0 + 3) == 0)
            #expect(try await store.liveSessions(appID: c.app.id, userID: "carol", now: t0 + 3).isEmpty)

            // A second cutoff of one scope moves the generation again and ends what came between.
            let carolAgain = try await signIn(store, app: c.app.id, user: "carol", key: nil, at: t0 + 3)
            #expect(try await standing(store, carolAgain, at: t0 + 3) == .live)
            let again = try await store.cutOff(.app(c.app.id), reason: nil, now: t0 + 4)
            #expect(again.sessionsEnded == 1)
            #expect(again.cutoff.generation == 2)
            #expect(try await standing(store, carolAgain, at: t0 + 4) == .cutOff(.app, reason: nil))
        }
    }

    func cutoffRefusals() async throws {
        try await withStore { store in
            let c = try await addCutoffCatalogue(store)
            let session = try await signIn(store, app: c.app.id, user: "alice", key: c.key)
            for target in [
                CutoffTarget.app(UUID()), .provider(UUID()), .key(UUID()), .user(appID: c.app.id, userID: "nobody"),
                .user(appID: UUID(), userID: "alice"),
            ] {
                await #expect(throws: StoreError.notFound, "\(target)") { try await store.cutOff(target, reason: nil, now: t0) }
                await #expect(throws: StoreError.notFound, "\(target)") { try await store.cutoff(of: target) }
            }
            _ = try await store.setKeyStatus(id: c.key.id, to: .deleted)
            await #expect(throws: StoreError.tombstone) { try await store.cutOff(.key(c.key.id), reason: nil, now: t0) }
            await #expect(throws: StoreError.tombstone) { try await store.cutoff(of: .key(c.key.id)) }
            #expect(try await standing(store, session) == .live, "a refused cutoff changed nothing")
            #expect(try await store.cutoff(of: .app(c.app.id)) == .none)
        }
    }

    /// Cutoffs through one instance racing sign-ins through another: every session that had
    /// returned before a cutoff began is over once it returns; every session begun after it
    /// returned is live; each cutoff counts exactly the sessions it ended.
    func raceCutoffsAgainstSignIns() async throws {
        try await withStores(2) { stores in
            let (cutter, signer) = (stores[0], stores[1])
            let c = try await addCutoffCatalogue(cutter)
            let targets: [CutoffTarget] = [
                .key(c.key.id), .provider(c.provider.id), .user(appID: c.app.id, userID: "u0"), .app(c.app.id),
            ]
            for (round, target) in targets.enumerated() {
                let before = try await withThrowingTaskGroup(of: NewSession.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await self.signIn(signer, app: c.app.id, user: "u0", key: c.key) }
                    }
                    return try await group.reduce(into: [NewSession]()) { $0.append($1) }
                }
                // During: sign-ins racing the cutoff; either side of it is right, but counted exactly.
                let (result, during) = try await withThrowingTaskGroup(of: (CutoffResult?, NewSession?).self) { group in
                    for _ in 0..<8 {
                        group.addTask { (nil, try await self.signIn(signer, app: c.app.id, user: "u0", key: c.key)) }
                    }
                    group.addTask { (try await cutter.cutOff(target, reason: "round \(round)", now: t0), nil) }
                    var result: CutoffResult?
                    var during: [NewSession] = []
                    for try await (cut, session) in group {
                        if let cut { result = cut }
                        if let session { during.append(session) }
                    }
                    return (try #require(result), during)
                }
                for session in before {
                    let standing = try await standing(signer, session)
                    #expect(standing?.isLive == false, "round \(round): a session made before the cutoff lives on")
                }
                let after = try await signIn(signer, app: c.app.id, user: "u0", key: c.key)
                #expect(try await standing(signer, after) == .live, "round \(round): a session made after the cutoff is refused")
                #expect(try await standing(cutter, after) == .live)
                // Exactly counted: what was live just before (this round's sessions, the earlier
                // rounds' having ended) less what lives now.
                var endedDuring = 0
                for session in during where try await standing(signer, session)?.isLive == false { endedDuring += 1 }
                #expect(result.sessionsEnded == before.count + endedDuring, "round \(round)")
                // Clean slate for the next scope.
                _ = try await cutter.cutOff(.app(c.app.id), reason: nil, now: t0)
            }
        }
    }
}
