import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Security events and their deliveries

extension StoreConformance {
    static let securityEventChecks: [Check] = [
        Check(name: "security events: written with their change, only for subscribers, numbered per user") {
            try await $0.securityEventsFollowTheirChanges()
        },
        Check(name: "security events: suspensions, cutoffs, keys and secrets tell their events with their fields") {
            try await $0.securityEventsOfTheCatalogue()
        },
        Check(name: "webhook deliveries: claimed in each user's order, leased, retried, given up with a pause, replayed") {
            try await $0.webhookDeliveryLifecycle()
        },
        Check(name: "race: two instances claiming at once never hold the same delivery") {
            try await $0.raceDeliveryClaims()
        },
        Check(name: "security events: a purge keeps what is still owed") { try await $0.securityEventPurge() },
        Check(name: "security event stream: every kind but session.created written for anyone; read by cursor, filtered, started at a time") {
            try await $0.securityEventStream()
        },
        Check(name: "session expiries: told once each, for subscribers only, a full page completed to its last second") {
            try await $0.sessionExpiries()
        },
        Check(name: "a user's cutoff tells cutoff.set, then session.ended (cut_off, with the reason) for each session it ended") {
            try await $0.userCutoffEvents()
        },
    ]

    /// The JSON object of an event's `data`.
    private func fields(_ event: SecurityEventRecord) throws -> [String: JSONValue] {
        try #require(try JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)).objectValue)
    }

    private func events(_ store: any Store, _ app: UUID, count: Int = 0) async throws -> [SecurityEventRecord] {
        try await store.settledSecurityEvents(appID: app, count: count)
    }

    func securityEventsFollowTheirChanges() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let quiet = try await store.addApp()
            let hook = makeWebhookEndpoint(app: app.id, events: ["session.created", "session.ended"])
            let paused = makeWebhookEndpoint(app: app.id, events: ["session.created"])
            try await store.createWebhookEndpoint(hook, limit: 20)
            try await store.createWebhookEndpoint(paused, limit: 20)
            _ = try await store.pauseWebhookEndpoint(id: paused.id, appID: app.id, reason: "test", now: t0)
            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: quiet.id, events: ["user.suspended"]), limit: 20)

            // A sign-in of an app nobody listens to for that kind writes nothing.
            _ = try await store.createSession(newSession(app: quiet.id, user: "u"))
            #expect(try await events(store, quiet.id).isEmpty)

            let device = DeviceDescription(name: "Ada's phone", platform: "iOS", appVersion: "2.1")
            let first = newSession(app: app.id, user: "ada", device: device)
            _ = try await store.createSession(first)
            // A sign-in that fails writes no event: the nonce was used.
            let reused = newSession(app: app.id, user: "ada", createdAt: t0 + 1, nonce: first.nonce)
            await #expect(throws: StoreError.nonceAlreadyUsed) { _ = try await store.createSession(reused) }
            let second = newSession(app: app.id, user: "ada", createdAt: t0 + 2)
            _ = try await store.createSession(second)
            _ = try await store.createSession(newSession(app: app.id, user: "bob", createdAt: t0 + 3))
            #expect(try await store.revokeSession(tokenHash: first.tokenHash, now: t0 + 10))
            #expect(try await store.revokeSession(tokenHash: first.tokenHash, now: t0 + 11) == false)
            _ = try await store.endSession(sessionID: second.sessionID, owner: nil, reason: .revoked, now: t0 + 12)

            let written = try await events(store, app.id, count: 5)
            #expect(written.map(\.kind) == [.sessionCreated, .sessionCreated, .sessionCreated, .sessionEnded, .sessionEnded])
            #expect(written.map(\.userID) == ["ada", "ada", "bob", "ada", "ada"])
            #expect(written.map(\.userSequence) == [1, 2, 1, 3, 4], "numbered per user, in commit order")
            #expect(written.map(\.at) == [t0, t0 + 2, t0 + 3, t0 + 10, t0 + 12])
            #expect(Set(written.map(\.id)).count == written.count)

            let created = try fields(written[0])
            #expect(created["session_id"] == .string(first.sessionID.uuidString.lowercased()))
            #expect(created["device"] == .object(["name": "Ada's phone", "platform": "iOS", "app_version": "2.1"]))
            let ownRevocation = try fields(written[3])
            #expect(ownRevocation == ["session_id": .string(first.sessionID.uuidString.lowercased()), "kind": "revoked", "actor": "user"])
            #expect(try fields(written[4])["actor"] == "operator")

            // One pending delivery per unpaused subscriber, none for the paused one.
            let owed = try await store.webhookDeliveries(endpointID: hook.id, appID: app.id, limit: 50)
            #expect(owed.map(\.event.id) == written.reversed().map(\.id), "newest first")
            #expect(owed.allSatisfy { $0.state == .pending && $0.attempts == 0 })
            #expect(try await store.webhookDeliveries(endpointID: paused.id, appID: app.id, limit: 50).isEmpty)
            await #expect(throws: StoreError.notFound) {
                _ = try await store.webhookDeliveries(endpointID: hook.id, appID: quiet.id, limit: 50)
            }

            // Changing what an endpoint hears is seen by the very next change.
            _ = try await store.updateWebhookEndpoint(
                id: hook.id, appID: app.id, change: WebhookEndpointChange(events: ["user.suspended"]), now: t0 + 20)
            _ = try await store.createSession(newSession(app: app.id, user: "cy", createdAt: t0 + 21))
            #expect(try await events(store, app.id).count == written.count)
            _ = try await store.updateWebhookEndpoint(
                id: paused.id, appID: app.id, change: WebhookEndpointChange(resume: true), now: t0 + 22)
            _ = try await store.createSession(newSession(app: app.id, user: "cy", createdAt: t0 + 23))
            #expect(try await events(store, app.id, count: written.count + 1).last?.userSequence == 1, "cy's first event")
        }
    }

    func securityEventsOfTheCatalogue() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let everything = SecurityEventKind.allCases.map(\.rawValue)
            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: app.id, events: everything), limit: 20)
            let provider = try await store.addProvider(apps: [app.id])
            let key = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active, publicKeyPEM: "pem", fingerprint: "fp-\(UUID())",
                createdAt: t0)
            try await store.createKey(key)
            _ = try await store.setKeyStatus(id: key.id, to: .disabled)
            _ = try await store.setKeyStatus(id: key.id, to: .disabled)
            _ = try await store.setKeyStatus(id: key.id, to: .active)

            let one = newSession(app: app.id, user: "ada", createdAt: t0 + 1)
            let two = newSession(app: app.id, user: "ada", createdAt: t0 + 2)
            _ = try await store.createSession(one)
            _ = try await store.createSession(two)
            _ = try await store.setSuspended(appID: app.id, userID: "ada", suspended: true, now: t0 + 10)
            _ = try await store.setSuspended(appID: app.id, userID: "ada", suspended: true, now: t0 + 11)
            _ = try await store.setSuspended(appID: app.id, userID: "ada", suspended: false, now: t0 + 12)
            _ = try await store.cutOff(.user(appID: app.id, userID: "ada"), reason: "phone stolen", now: t0 + 13)
            _ = try await store.cutOff(.key(key.id), reason: nil, now: t0 + 14)
            _ = try await store.setKeyStatus(id: key.id, to: .deleted)

            let secret = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: randomBytes(), createdAt: t0)
            try await store.createRegistrationSecret(secret)
            _ = try await store.revokeRegistrationSecret(applicationKey: secret.applicationKey, appID: app.id, at: t0 + 20)
            _ = try await store.revokeRegistrationSecret(applicationKey: secret.applicationKey, appID: app.id, at: t0 + 30)

            let written = try await events(store, app.id, count: 13)
            let kinds: [SecurityEventKind] = [
                .keyCreated, .keyDisabled, .keyEnabled, .sessionCreated, .sessionCreated, .userSuspended, .sessionEnded,
                .sessionEnded, .userUnsuspended, .cutoffSet, .cutoffSet, .keyDeleted, .registrationSecretRevoked,
            ]
            #expect(written.map(\.kind) == kinds, "a repeat that changes nothing tells nothing")
            #expect(written.filter { $0.userID == "ada" }.map(\.userSequence) == [1, 2, 3, 4, 5, 6, 7])
            #expect(written.filter { $0.userID == nil }.allSatisfy { $0.userSequence == nil })

            let ids = [one.sessionID, two.sessionID].map { $0.uuidString.lowercased() }.sorted()
            let suspended = try fields(written[5])
            #expect(
                suspended["ended_session_ids"].map { value -> [String] in
                    guard case .array(let items) = value else { return [] }
                    return items.compactMap(\.stringValue).sorted()
                } == ids)
            #expect(try Set(written[6...7].map { try fields($0)["session_id"]?.stringValue ?? "" }) == Set(ids))
            #expect(try written[6...7].allSatisfy { try fields($0)["kind"] == "suspended" && fields($0)["actor"] == "operator" })
            let userCutoff = try fields(written[9])
            #expect(userCutoff["scope"] == "user" && userCutoff["user_id"] == "ada" && userCutoff["reason"] == "phone stolen")
            #expect(userCutoff["generation"]?.integerValue == 1)
            #expect(written[9].userID == "ada")
            let keyCutoff = try fields(written[10])
            #expect(keyCutoff["scope"] == "key" && keyCutoff["key_id"] == .string(key.id.uuidString.lowercased()))
            #expect(try fields(written[0])["provider_id"] == .string(provider.id.uuidString.lowercased()))
            #expect(try fields(written[11])["status"] == "deleted")
            #expect(try fields(written[12])["revoked_at"]?.integerValue == t0 + 20)
        }
    }

    func webhookDeliveryLifecycle() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let hook = makeWebhookEndpoint(app: app.id, events: ["session.created"])
            try await store.createWebhookEndpoint(hook, limit: 20)
            for (user, second) in [("ada", 0), ("bob", 1), ("ada", 2)] {
                _ = try await store.createSession(newSession(app: app.id, user: user, createdAt: t0 + Int64(second)))
            }
            let now = (t0 + 10) * 1_000
            let lease: Int64 = 30_000

            // Ada's second event waits for her first; Bob's goes beside it.
            let first = try await store.claimWebhookDeliveries(now: now, lease: lease, limit: 10)
            #expect(first.map(\.delivery.event.userID) == ["ada", "bob"])
            #expect(first.map(\.delivery.event.userSequence) == [1, 1])
            #expect(first.allSatisfy { $0.url == hook.url && $0.secret == hook.secret && $0.leaseUntil == now + lease })
            #expect(try await store.claimWebhookDeliveries(now: now + 1, lease: lease, limit: 10).isEmpty, "leased")

            let ada = try #require(first.first).delivery.event.id
            let bob = try #require(first.last).delivery.event.id
            try await store.finishWebhookAttempt(
                WebhookAttempt(endpointID: hook.id, eventID: ada, verdict: .retry(at: now + 500), outcome: "HTTP 500", at: now + 2))
            try await store.finishWebhookAttempt(
                WebhookAttempt(endpointID: hook.id, eventID: bob, verdict: .delivered, outcome: "HTTP 200", at: now + 3))
            #expect(try await store.claimWebhookDeliveries(now: now + 10, lease: lease, limit: 10).isEmpty, "not due yet")
            let retried = try await store.claimWebhookDeliveries(now: now + 500, lease: lease, limit: 10)
            #expect(retried.map(\.delivery.event.id) == [ada])
            #expect(retried.first?.delivery.attempts == 1)
            #expect(retried.first?.delivery.lastOutcome == "HTTP 500")

            // A lease that runs out frees the delivery for anyone: the worker holding it died.
            let again = try await store.claimWebhookDeliveries(now: now + 500 + lease, lease: lease, limit: 10)
            #expect(again.map(\.delivery.event.id) == [ada])
            try await store.finishWebhookAttempt(
                WebhookAttempt(endpointID: hook.id, eventID: ada, verdict: .delivered, outcome: "HTTP 204", at: now + 600))
            // A late attempt of a delivery that is done changes nothing.
            try await store.finishWebhookAttempt(
                WebhookAttempt(endpointID: hook.id, eventID: ada, verdict: .retry(at: now), outcome: "late", at: now + 601))

            let third = try await store.claimWebhookDeliveries(now: now + 700, lease: lease, limit: 10)
            #expect(third.map(\.delivery.event.userSequence) == [2])
            let last = try #require(third.first).delivery.event.id
            try await store.finishWebhookAttempt(
                WebhookAttempt(
                    endpointID: hook.id, eventID: last, verdict: .giveUp(pauseReason: "no answer for 24 hours"),
                    outcome: "timed out", at: now + 800))
            let paused = try #require(try await store.webhookEndpoints(appID: app.id).first)
            #expect(paused.pauseReason == "no answer for 24 hours")
            #expect(paused.pausedAt == (now + 800) / 1_000)
            // A paused endpoint is owed nothing new.
            _ = try await store.createSession(newSession(app: app.id, user: "ada", createdAt: t0 + 20))

            let listed = try await store.webhookDeliveries(endpointID: hook.id, appID: app.id, limit: 10)
            #expect(listed.map(\.state) == [.failed, .delivered, .delivered])
            #expect(listed.map(\.attempts) == [1, 1, 2])
            #expect(listed[1].deliveredAt == now + 3)

            let replayed = try await store.replayWebhookDelivery(endpointID: hook.id, appID: app.id, eventID: last, now: now + 900)
            #expect(replayed.state == .pending && replayed.nextAttemptAt == now + 900)
            await #expect(throws: StoreError.notFound) {
                _ = try await store.replayWebhookDelivery(endpointID: hook.id, appID: UUID(), eventID: last, now: now)
            }
            #expect(try await store.claimWebhookDeliveries(now: now + 1_000, lease: lease, limit: 10).isEmpty, "paused")
            _ = try await store.updateWebhookEndpoint(id: hook.id, appID: app.id, change: WebhookEndpointChange(resume: true), now: t0)
            let resumed = try await store.claimWebhookDeliveries(now: now + 1_000, lease: lease, limit: 10)
            #expect(resumed.map(\.delivery.event.id) == [last])

            // Deleting the endpoint drops what it was owed.
            try await store.deleteWebhookEndpoint(id: hook.id, appID: app.id)
            #expect(try await store.claimWebhookDeliveries(now: now + 100_000, lease: lease, limit: 10).isEmpty)
        }
    }

    func raceDeliveryClaims() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp()
            try await stores[0].createWebhookEndpoint(makeWebhookEndpoint(app: app.id, events: ["session.created"]), limit: 20)
            for index in 0..<40 {
                _ = try await stores[index % 2].createSession(newSession(app: app.id, user: "user-\(index % 10)"))
            }
            let now = (t0 + 10) * 1_000
            // Both instances claim in small batches at once until nothing is left; nothing is
            // finished, so every delivery can be held by one claim at most.
            let claimed = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for store in stores {
                    group.addTask {
                        var mine: [UUID] = []
                        while true {
                            let batch = try await store.claimWebhookDeliveries(now: now, lease: 60_000, limit: 3)
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.delivery.event.id)
                        }
                    }
                }
                return try await group.reduce(into: [UUID]()) { $0 += $1 }
            }
            #expect(claimed.count == 10, "one per user: each user's first event")
            #expect(Set(claimed).count == claimed.count)
        }
    }

    func securityEventPurge() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let hook = makeWebhookEndpoint(app: app.id, events: ["session.created"])
            try await store.createWebhookEndpoint(hook, limit: 20)
            _ = try await store.createSession(newSession(app: app.id, user: "ada", createdAt: t0))
            _ = try await store.createSession(newSession(app: app.id, user: "bob", createdAt: t0))
            _ = try await store.createSession(newSession(app: app.id, user: "cy", createdAt: t0 + 100))
            let claimed = try await store.claimWebhookDeliveries(now: (t0 + 200) * 1_000, lease: 1_000, limit: 10)
            let ada = try #require(claimed.first { $0.delivery.event.userID == "ada" })
            try await store.finishWebhookAttempt(
                WebhookAttempt(endpointID: hook.id, eventID: ada.delivery.event.id, verdict: .delivered, outcome: "HTTP 200", at: 0))

            // Ada's is delivered and old: gone. Bob's is old but still owed; Cy's is recent.
            #expect(try await store.purgeSecurityEvents(before: t0 + 50) == 1)
            #expect(try await events(store, app.id, count: 2).compactMap(\.userID).sorted() == ["bob", "cy"])
            #expect(try await store.webhookDeliveries(endpointID: hook.id, appID: app.id, limit: 10).count == 2)
        }
    }

    func securityEventStream() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let ada = newSession(app: app.id, user: "ada", createdAt: t0)
            _ = try await store.createSession(ada)
            #expect(try await store.revokeSession(tokenHash: ada.tokenHash, now: t0 + 10))
            _ = try await store.setSuspended(appID: app.id, userID: "bob", suspended: true, now: t0 + 20)
            _ = try await store.cutOff(.app(app.id), reason: nil, now: t0 + 30)
            _ = try await store.cutOff(.app(other.id), reason: nil, now: t0 + 31)

            // No endpoint listens: the sign-in wrote nothing, the endings everything.
            let all = try await store.settledSecurityEvents(appID: app.id, count: 3)
            #expect(all.map(\.kind) == [.sessionEnded, .userSuspended, .cutoffSet])
            #expect(all.allSatisfy { $0.appID == app.id })

            // Read one at a time, each after the last cursor: the same events, cursors rising.
            var cursor = SecurityEventCursor.start
            var oneByOne: [SecurityEventRecord] = []
            while let next = try await store.securityEvents(appID: app.id, after: cursor, kinds: nil, limit: 1).first {
                #expect(next.cursor > cursor)
                #expect(SecurityEventCursor(next.cursor.description) == next.cursor, "its text reads back")
                cursor = next.cursor
                oneByOne.append(next.event)
            }
            #expect(oneByOne == all)

            let cutoffs = try await store.securityEvents(appID: app.id, after: .start, kinds: [.cutoffSet], limit: 10)
            #expect(cutoffs.map(\.event.kind) == [.cutoffSet])
            #expect(try await store.securityEvents(appID: app.id, after: .start, kinds: [], limit: 10).isEmpty)

            // Started at a time: from the first event at or after it; past the last, only what comes next.
            let fromSuspension = try await store.securityEventCursor(appID: app.id, since: t0 + 15)
            #expect(
                try await store.securityEvents(appID: app.id, after: fromSuspension, kinds: nil, limit: 10).map(\.event.kind) == [.userSuspended, .cutoffSet])
            let fromNow = try await store.securityEventCursor(appID: app.id, since: t0 + 100)
            #expect(try await store.securityEvents(appID: app.id, after: fromNow, kinds: nil, limit: 10).isEmpty)
            _ = try await store.setSuspended(appID: app.id, userID: "bob", suspended: false, now: t0 + 200)
            var later: [SecurityEventKind] = []
            let deadline = ContinuousClock.now + .seconds(20)
            while later.isEmpty, ContinuousClock.now < deadline {
                later = try await store.securityEvents(appID: app.id, after: fromNow, kinds: nil, limit: 10).map(\.event.kind)
                if later.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(later == [.userUnsuspended])
            let empty = try await store.addApp()
            #expect(try await store.securityEventCursor(appID: empty.id, since: t0) == .start)
        }
    }

    func sessionExpiries() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let quiet = try await store.addApp()
            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: app.id, events: ["session.ended"]), limit: 20)
            #expect(try await store.recordSessionExpiries(now: t0, limit: 10) == 0, "the first call starts the count")
            func session(_ user: String, expiresAt: Int64, app: UUID) async throws -> NewSession {
                let session = newSession(app: app, user: user, createdAt: t0 - 1, expiresAt: expiresAt)
                _ = try await store.createSession(session)
                return session
            }
            let first = try await session("ada", expiresAt: t0 + 10, app: app.id)
            let revoked = try await session("ada", expiresAt: t0 + 20, app: app.id)
            let third = try await session("bob", expiresAt: t0 + 20, app: app.id)
            _ = try await session("ada", expiresAt: t0 + 10, app: quiet.id)
            let later = try await session("cy", expiresAt: t0 + 100, app: app.id)
            #expect(try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 5))
            let before = try await store.settledSecurityEvents(appID: app.id, count: 1).count

            #expect(try await store.recordSessionExpiries(now: t0 + 50, limit: 10) == 2)
            #expect(try await store.recordSessionExpiries(now: t0 + 50, limit: 10) == 0, "told once")
            let told = Array(try await store.settledSecurityEvents(appID: app.id, count: before + 2).dropFirst(before))
            #expect(told.map(\.kind) == [.sessionEnded, .sessionEnded])
            #expect(told.map(\.at) == [t0 + 10, t0 + 20], "at the expiry")
            #expect(told.map(\.userID) == ["ada", "bob"])
            for (event, session) in zip(told, [first, third]) {
                let fields = try JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)).objectValue
                #expect(fields?["session_id"] == .string(session.sessionID.uuidString.lowercased()))
                #expect(fields?["kind"] == "expired" && fields?["actor"] == nil)
            }
            #expect(try await store.settledSecurityEvents(appID: quiet.id, count: 0).isEmpty, "nobody listens there")

            // A page of two ends inside t0 + 200: the whole of that second is told with it.
            var sameSecond: [NewSession] = []
            for user in ["d", "e", "f"] { sameSecond.append(try await session(user, expiresAt: t0 + 200, app: app.id)) }
            let last = try await session("g", expiresAt: t0 + 201, app: app.id)
            #expect(try await store.recordSessionExpiries(now: t0 + 300, limit: 2) == 4)
            #expect(try await store.recordSessionExpiries(now: t0 + 300, limit: 2) == 1)
            #expect(try await store.recordSessionExpiries(now: t0 + 300, limit: 2) == 0)
            let all = try await store.settledSecurityEvents(appID: app.id, count: before + 7)
            let ids = all.compactMap { event -> String? in
                guard case .string(let id)? = try? JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)).objectValue?["session_id"]
                else { return nil }
                return event.data.contains("expired") ? id : nil
            }
            let expected = ([first, third, later] + sameSecond + [last]).map { $0.sessionID.uuidString.lowercased() }
            #expect(ids.count == expected.count && Set(ids) == Set(expected), "each expiry told once")
        }
    }

    func userCutoffEvents() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let live = [newSession(app: app.id, user: "ada"), newSession(app: app.id, user: "ada", createdAt: t0 + 1)]
            let revoked = newSession(app: app.id, user: "ada", createdAt: t0 + 2)
            for session in live + [revoked] { _ = try await store.createSession(session) }
            _ = try await store.createSession(newSession(app: app.id, user: "bob"))
            #expect(try await store.revokeSession(tokenHash: revoked.tokenHash, now: t0 + 5))
            let result = try await store.cutOff(.user(appID: app.id, userID: "ada"), reason: "phone stolen", now: t0 + 10)
            #expect(result.sessionsEnded == 2)

            let events = try await store.settledSecurityEvents(appID: app.id, count: 4)
            #expect(events.map(\.kind) == [.sessionEnded, .cutoffSet, .sessionEnded, .sessionEnded])
            #expect(events.map(\.userSequence) == [1, 2, 3, 4])
            var told: Set<String> = []
            for event in events.suffix(2) {
                let fields = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(event.data.utf8)).objectValue)
                #expect(fields["kind"] == "cut_off" && fields["actor"] == "operator" && fields["reason"] == "phone stolen")
                if case .string(let id)? = fields["session_id"] { told.insert(id) }
            }
            #expect(told == Set(live.map { $0.sessionID.uuidString.lowercased() }), "the live ones, not the revoked one")

            // An app's cutoff tells only itself, however many sessions it ends.
            _ = try await store.cutOff(.app(app.id), reason: nil, now: t0 + 20)
            #expect(try await store.settledSecurityEvents(appID: app.id, count: 5).dropFirst(4).map(\.kind) == [.cutoffSet])
        }
    }
}
