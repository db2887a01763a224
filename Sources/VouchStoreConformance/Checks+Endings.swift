import Foundation
import Synchronization
import Testing
import VouchProtocol
import VouchStore

// MARK: - The log of session endings

extension StoreConformance {
    static let endingChecks: [Check] = [
        Check(name: "sessionEndings: each ending appends exactly its entries, none for a session that was over") {
            try await $0.endingsAppendedExactly()
        },
        Check(name: "sessionEndings: a refused operation appends nothing") { try await $0.refusedOperationsAppendNothing() },
        Check(name: "sessionEndings: paging, oldest and latest, missed entries after a purge") {
            try await $0.endingsPagingAndPurge()
        },
        Check(name: "race: endings on two instances, a reader polling never sees a position below one it saw") {
            try await $0.raceEndingsAgainstReader()
        },
    ]

    /// Everything after `position`, in pages of `limit`.
    func allEndings(_ store: any Store, after position: Int64 = 0, limit: Int = 100) async throws -> [SessionEnding] {
        var entries: [SessionEnding] = []
        var last = position
        while true {
            let page = try await store.sessionEndings(after: last, limit: limit)
            guard let newest = page.entries.last else { return entries }
            entries += page.entries
            last = newest.position
        }
    }

    /// The entries appended by `body`, each checked to follow the last one before it.
    func appended(_ store: any Store, by body: () async throws -> Void) async throws -> [SessionEnding] {
        let before = try await store.sessionEndings(after: 0, limit: 0).latestPosition
        try await body()
        let entries = try await allEndings(store, after: before)
        #expect(entries.map(\.position) == entries.map(\.position).sorted(), "ascending")
        #expect(Set(entries.map(\.position)).count == entries.count, "strictly increasing")
        #expect(entries.allSatisfy { $0.position > before })
        return entries
    }

    func endingsAppendedExactly() async throws {
        try await withStore { store in
            let empty = try await store.sessionEndings(after: 0, limit: 10)
            #expect(empty == SessionEndingsPage(entries: [], oldestPosition: nil, latestPosition: 0))
            let c = try await addCutoffCatalogue(store)
            let app = c.app.id
            func scope(_ session: NewSession) -> SessionEndingScope {
                .session(session.sessionID, appID: session.appID, userID: session.userID)
            }

            // revokeSession: one entry; again, an expired one and an unknown one: nothing.
            let one = try await signIn(store, app: app, user: "alice", key: nil)
            let shortLived = newSession(app: app, user: "alice", createdAt: t0, expiresAt: t0 + 5)
            _ = try await store.createSession(shortLived)
            var entries = try await appended(store) { () async throws in
                #expect(try await store.revokeSession(tokenHash: one.tokenHash, now: t0 + 10))
                #expect(try await store.revokeSession(tokenHash: one.tokenHash, now: t0 + 11) == false)
                #expect(try await store.revokeSession(tokenHash: shortLived.tokenHash, now: t0 + 10) == false)
                #expect(try await store.revokeSession(tokenHash: randomBytes(), now: t0 + 10) == false)
            }
            #expect(entries.map(\.kind) == [.revoked])
            #expect(entries == [SessionEnding(position: entries.first?.position ?? 0, at: t0 + 10, kind: .revoked, scope: scope(one))])

            // endSession: signed out, or revoked by an operator; a second end appends nothing.
            let phone = try await signIn(store, app: app, user: "alice", key: nil)
            let laptop = try await signIn(store, app: app, user: "alice", key: nil)
            entries = try await appended(store) { () async throws in
                _ = try await store.endSession(sessionID: phone.sessionID, owner: (app, "alice"), reason: .signedOut, now: t0 + 20)
                _ = try await store.endSession(sessionID: phone.sessionID, owner: nil, reason: .revoked, now: t0 + 21)
                _ = try await store.endSession(sessionID: laptop.sessionID, owner: nil, reason: .revoked, now: t0 + 22)
            }
            #expect(entries.map(\.kind) == [.signedOut, .revoked])
            #expect(entries.map(\.scope) == [scope(phone), scope(laptop)])

            // signOutOtherSessions: one entry per other live session; not the kept one, not one
            // already revoked, expired or cut off by its key.
            let kept = try await signIn(store, app: app, user: "bob", key: nil)
            let others = [
                try await signIn(store, app: app, user: "bob", key: nil), try await signIn(store, app: app, user: "bob", key: c.secondKey),
            ]
            let cutByKey = try await signIn(store, app: app, user: "bob", key: c.key)
            _ = try await store.cutOff(.key(c.key.id), reason: nil, now: t0 + 30)
            entries = try await appended(store) { () async throws in
                #expect(try await store.signOutOtherSessions(appID: app, userID: "bob", keeping: kept.tokenHash, now: t0 + 31) == 2)
                #expect(try await store.signOutOtherSessions(appID: app, userID: "bob", keeping: kept.tokenHash, now: t0 + 32) == 0)
            }
            #expect(entries.allSatisfy { $0.kind == .signedOut && $0.at == t0 + 31 })
            #expect(Set(entries.map(\.scope)) == Set(others.map(scope)))
            #expect(try await standing(store, cutByKey, at: t0 + 32) == .cutOff(.key, reason: nil), "a cut-off session stays cut off")

            // revokeSessions: one entry per live session, none for the cut-off one or another user's.
            let carol = [try await signIn(store, app: app, user: "carol", key: nil), try await signIn(store, app: app, user: "carol", key: nil)]
            let carolCut = try await signIn(store, app: app, user: "carol", key: c.secondKey)
            _ = try await store.cutOff(.key(c.secondKey.id), reason: "leak", now: t0 + 40)
            entries = try await appended(store) { () async throws in
                #expect(try await store.revokeSessions(appID: app, userID: "carol", now: t0 + 41) == 2)
                #expect(try await store.revokeSessions(appID: app, userID: "carol", now: t0 + 42) == 0)
                #expect(try await store.revokeSession(tokenHash: carolCut.tokenHash, now: t0 + 42) == false)
            }
            #expect(entries.allSatisfy { $0.kind == .revoked && $0.at == t0 + 41 })
            #expect(Set(entries.map(\.scope)) == Set(carol.map(scope)))

            // setSuspended: one user entry when it suspends; not again, not when lifting.
            _ = try await signIn(store, app: app, user: "dave", key: nil)
            entries = try await appended(store) { () async throws in
                _ = try await store.setSuspended(appID: app, userID: "dave", suspended: true, now: t0 + 50)
                _ = try await store.setSuspended(appID: app, userID: "dave", suspended: true, now: t0 + 51)
                _ = try await store.setSuspended(appID: app, userID: "dave", suspended: false, now: t0 + 52)
                _ = try await store.setSuspended(appID: app, userID: "erin", suspended: false, now: t0 + 52)
            }
            #expect(entries.map(\.kind) == [.suspended])
            #expect(entries.map(\.scope) == [.user(appID: app, userID: "dave")])
            #expect(entries.first?.at == t0 + 50)

            // cutOff: one entry of its scope with the new generation and the reason, sessions or not.
            let targets: [CutoffTarget] = [
                .app(c.otherApp.id), .provider(c.otherProvider.id), .key(c.otherKey.id), .user(appID: app, userID: "alice"),
                .app(c.otherApp.id),
            ]
            entries = try await appended(store) { () async throws in
                for (index, target) in targets.enumerated() {
                    _ = try await store.cutOff(target, reason: index == 1 ? nil : "reason \(index)", now: t0 + 60 + Int64(index))
                }
            }
            #expect(entries.map(\.kind) == Array(repeating: .cutOff, count: targets.count))
            #expect(entries.map(\.scope) == targets.map(\.endingScope))
            #expect(entries.map(\.generation) == [1, 1, 1, 1, 2])
            #expect(entries.map(\.reason) == ["reason 0", nil, "reason 2", "reason 3", "reason 4"])
            #expect(entries.map(\.at) == (0..<Int64(targets.count)).map { t0 + 60 + $0 })

            // Positions from 1, strictly increasing over everything appended.
            let all = try await allEndings(store, limit: 3)
            #expect(all.map(\.position) == Array(1...Int64(all.count)))
            #expect(try await store.sessionEndings(after: 0, limit: 1).latestPosition == Int64(all.count))
        }
    }

    func refusedOperationsAppendNothing() async throws {
        try await withStore { store in
            let c = try await addCutoffCatalogue(store)
            let session = try await signIn(store, app: c.app.id, user: "alice", key: c.key)
            _ = try await store.setKeyStatus(id: c.key.id, to: .deleted)
            let entries = try await appended(store) { () async throws in
                for target in [
                    CutoffTarget.app(UUID()), .provider(UUID()), .key(UUID()), .key(c.key.id), .user(appID: c.app.id, userID: "nobody"),
                ] {
                    await #expect(throws: StoreError.self, "\(target)") { try await store.cutOff(target, reason: nil, now: t0) }
                }
                await #expect(throws: StoreError.self) {
                    try await store.setSuspended(appID: UUID(), userID: "alice", suspended: true, now: t0)
                }
                #expect(try await store.endSession(sessionID: session.sessionID, owner: (c.app.id, "bob"), reason: .signedOut, now: t0) == nil)
                #expect(try await store.endSession(sessionID: UUID(), owner: nil, reason: .revoked, now: t0) == nil)
                #expect(try await store.revokeSessions(appID: UUID(), userID: "alice", now: t0) == 0)
                #expect(try await store.signOutOtherSessions(appID: c.app.id, userID: "nobody", keeping: [], now: t0) == 0)
            }
            #expect(entries.isEmpty)
            #expect(try await store.sessionEndings(after: 0, limit: 10) == SessionEndingsPage(entries: [], oldestPosition: nil, latestPosition: 0))
            #expect(try await standing(store, session) == .live)
        }
    }

    func endingsPagingAndPurge() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            // Five entries, logged at t0 … t0 + 4.
            for index in 0..<Int64(5) { _ = try await store.cutOff(.app(app.id), reason: nil, now: t0 + index) }
            var page = try await store.sessionEndings(after: 0, limit: 2)
            #expect(page.entries.map(\.position) == [1, 2])
            #expect(page.oldestPosition == 1 && page.latestPosition == 5)
            page = try await store.sessionEndings(after: 2, limit: 2)
            #expect(page.entries.map(\.position) == [3, 4])
            page = try await store.sessionEndings(after: 4, limit: 2)
            #expect(page.entries.map(\.position) == [5])
            page = try await store.sessionEndings(after: 5, limit: 2)
            #expect(page.entries.isEmpty && page.latestPosition == 5)
            #expect(page.missedEntries(after: 0) == false, "nothing purged yet")

            #expect(try await store.purgeSessionEndings(before: t0 + 3) == 3)
            page = try await store.sessionEndings(after: 0, limit: 10)
            #expect(page.entries.map(\.position) == [4, 5])
            #expect(page.oldestPosition == 4 && page.latestPosition == 5)
            #expect(page.missedEntries(after: 2), "entry 3 went unread")
            #expect(page.missedEntries(after: 3) == false)
            #expect(page.missedEntries(after: 5) == false)

            // Emptied: the latest position stays, and the next entry comes after it.
            #expect(try await store.purgeSessionEndings(before: t0 + 100) == 2)
            page = try await store.sessionEndings(after: 0, limit: 10)
            #expect(page == SessionEndingsPage(entries: [], oldestPosition: nil, latestPosition: 5))
            #expect(page.missedEntries(after: 4))
            #expect(page.missedEntries(after: 5) == false)
            #expect(try await store.purgeSessionEndings(before: t0 + 100) == 0)
            _ = try await store.cutOff(.app(app.id), reason: nil, now: t0 + 200)
            page = try await store.sessionEndings(after: 5, limit: 10)
            #expect(page.entries.map(\.position) == [6])
            #expect(page.oldestPosition == 6 && page.latestPosition == 6)
            #expect(page.entries.first?.generation == 6)
        }
    }

    /// Sessions ended on two instances at once while a reader polls the log through one of them:
    /// every page starts above the last position the reader saw, and once the endings are done
    /// the reader has seen every entry, exactly the ones the endings appended.
    func raceEndingsAgainstReader() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp()
            let sessions = try await withThrowingTaskGroup(of: NewSession.self) { group in
                for index in 0..<48 {
                    group.addTask { try await self.signIn(stores[index % 2], app: app.id, user: "u\(index % 6)", key: nil) }
                }
                return try await group.reduce(into: [NewSession]()) { $0.append($1) }
            }
            let done = Atomic<Bool>(false)
            let reader = Task { () -> [Int64] in
                var seen: [Int64] = []
                var last: Int64 = 0
                while true {
                    let finished = done.load(ordering: .acquiring)
                    let page = try await stores[1].sessionEndings(after: last, limit: 7)
                    for entry in page.entries {
                        #expect(entry.position > last, "a position at or below one already seen")
                        last = entry.position
                        seen.append(entry.position)
                    }
                    if finished, page.entries.isEmpty { return seen }
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            let outcomes = await race(
                sessions.enumerated().map { index, session in
                    let store = stores[index % 2]
                    return { @Sendable in
                        try await store.revokeSession(tokenHash: session.tokenHash, now: t0 + Int64(index % 3)) ? 1 : 0
                    }
                } + [
                    { @Sendable in
                        _ = try await stores[0].cutOff(.app(app.id), reason: "race", now: t0)
                        return 1
                    },
                    { @Sendable in try await stores[1].revokeSessions(appID: app.id, userID: "u0", now: t0) },
                ])
            done.store(true, ordering: .releasing)
            let seen = try await reader.value
            let appended = outcomes.compactMap(\.value).reduce(0, +)
            #expect(outcomes.allSatisfy { $0.value != nil })
            let all = try await allEndings(stores[0])
            #expect(all.count == appended, "one entry per ending, nothing else")
            #expect(seen == all.map(\.position), "the reader saw every entry, in order")
        }
    }
}
