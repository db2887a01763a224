import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - The audit log and each key's last verification

extension StoreConformance {
    static let auditChecks: [Check] = [
        Check(name: "audit: entries read back newest first with every field") { try await $0.auditRoundTrip() },
        Check(name: "audit: filters by kind, action, app, object and time, each alone and together") { try await $0.auditFilters() },
        Check(name: "audit: a cursor pages through everything once, newest first") { try await $0.auditPaging() },
        Check(name: "audit: purgeAudit removes exactly the older entries") { try await $0.auditPurge() },
        Check(name: "audit: concurrent appends over two instances all land, with distinct ids") { try await $0.auditConcurrentAppends() },
        Check(name: "keys: lastVerifiedAt moves with sign-ins, once per resolution, never back, not on failure") {
            try await $0.keyLastVerified()
        },
        Check(name: "race: 16 sign-ins with one key over two instances all succeed, key verified once") {
            try await $0.raceSignInsWithOneKey()
        },
    ]

    func auditRoundTrip() async throws {
        try await withStore { store in
            #expect(try await store.auditEntries(AuditQuery()) == [])
            try await store.appendAudit([])
            let app = UUID()
            let written = [
                NewAuditEntry(
                    at: t0, kind: .admin, actor: "api", action: "app.create", outcome: "ok",
                    appID: app, objectType: "app", objectID: app.lowercased),
                NewAuditEntry(
                    at: t0 + 1, kind: .signInRejected, actor: nil, action: "sign_in.rejected",
                    outcome: "eit_expired", appID: app, count: 17),
                NewAuditEntry(
                    at: t0 + 1, kind: .admin, actor: "dashboard:abc", action: "user.suspend", outcome: "not_found",
                    objectType: "user", objectID: "üser ✓"),
            ]
            try await store.appendAudit(written)
            let read = try await store.auditEntries(AuditQuery())
            #expect(read.map(\.entry) == written.reversed())
            // Ids grow with insertion order, and later appends get larger ones.
            #expect(read.map(\.id) == read.map(\.id).sorted(by: >))
            #expect(Set(read.map(\.id)).count == 3)
            try await store.appendAudit([written[0]])
            let newest = try #require(try await store.auditEntries(AuditQuery(limit: 1)).first)
            #expect(newest.id > read[0].id)
            #expect(newest.entry == written[0])
        }
    }

    func auditFilters() async throws {
        try await withStore { store in
            let appA = UUID(), appB = UUID(), key = UUID()
            let entries = [
                NewAuditEntry(
                    at: t0, kind: .admin, actor: "api", action: "app.create", outcome: "ok",
                    appID: appA, objectType: "app", objectID: appA.lowercased),
                NewAuditEntry(
                    at: t0 + 10, kind: .admin, actor: "api", action: "key.disable", outcome: "ok",
                    objectType: "key", objectID: key.lowercased),
                NewAuditEntry(
                    at: t0 + 20, kind: .signInRejected, actor: nil, action: "sign_in.rejected",
                    outcome: "eit_expired", appID: appA, count: 3),
                NewAuditEntry(
                    at: t0 + 30, kind: .signInRejected, actor: nil, action: "sign_in.rejected",
                    outcome: "eit_signature_invalid", appID: appB),
                NewAuditEntry(
                    at: t0 + 40, kind: .admin, actor: "dashboard:s1", action: "key.enable", outcome: "ok",
                    objectType: "key", objectID: key.lowercased),
            ]
            try await store.appendAudit(entries)
            func matching(_ query: AuditQuery) async throws -> [NewAuditEntry] {
                try await store.auditEntries(query).map(\.entry)
            }
            #expect(try await matching(AuditQuery(kind: .admin)) == [entries[4], entries[1], entries[0]])
            #expect(try await matching(AuditQuery(kind: .signInRejected)) == [entries[3], entries[2]])
            #expect(try await matching(AuditQuery(action: "key.disable")) == [entries[1]])
            #expect(try await matching(AuditQuery(action: "nothing")) == [])
            #expect(try await matching(AuditQuery(appID: appA)) == [entries[2], entries[0]])
            #expect(try await matching(AuditQuery(appID: UUID())) == [])
            #expect(try await matching(AuditQuery(objectID: key.lowercased)) == [entries[4], entries[1]])
            // `since` is inclusive, `until` exclusive.
            #expect(try await matching(AuditQuery(since: t0 + 20)) == [entries[4], entries[3], entries[2]])
            #expect(try await matching(AuditQuery(until: t0 + 20)) == [entries[1], entries[0]])
            #expect(try await matching(AuditQuery(since: t0 + 10, until: t0 + 31)) == [entries[3], entries[2], entries[1]])
            #expect(try await matching(AuditQuery(kind: .signInRejected, appID: appA, since: t0, until: t0 + 100)) == [entries[2]])
            #expect(try await matching(AuditQuery(kind: .admin, appID: appB)) == [])
            #expect(try await matching(AuditQuery(since: t0 + 41)) == [])
        }
    }

    func auditPaging() async throws {
        try await withStore { store in
            let app = UUID()
            let entries = (0..<23).map { index in
                NewAuditEntry(
                    at: t0 + Int64(index), kind: .admin, actor: "api", action: "app.update", outcome: "ok",
                    appID: index % 2 == 0 ? app : nil, objectType: "app", objectID: "\(index)")
            }
            try await store.appendAudit(Array(entries[..<10]))
            try await store.appendAudit(Array(entries[10...]))

            func pages(_ base: AuditQuery) async throws -> [[NewAuditEntry]] {
                var pages: [[NewAuditEntry]] = []
                var query = base
                while true {
                    let page = try await store.auditEntries(query)
                    if page.isEmpty { return pages }
                    #expect(page.count <= query.limit)
                    pages.append(page.map(\.entry))
                    query.beforeID = page.last?.id
                }
            }
            let all = try await pages(AuditQuery(limit: 5))
            #expect(all.map(\.count) == [5, 5, 5, 5, 3])
            #expect(all.flatMap { $0 } == entries.reversed())
            // The cursor combines with a filter: the app's 12 entries, in fours.
            let filtered = try await pages(AuditQuery(appID: app, limit: 4))
            #expect(filtered.map(\.count) == [4, 4, 4])
            #expect(filtered.flatMap { $0 } == entries.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).reversed())
            // The page size is clamped to 1...maximumLimit.
            #expect(AuditQuery(limit: 0).limit == 1)
            #expect(AuditQuery(limit: 1_000_000).limit == AuditQuery.maximumLimit)
            #expect(try await store.auditEntries(AuditQuery(limit: 0)).count == 1)
            // A cursor older than everything reads nothing.
            let oldest = try #require(try await store.auditEntries(AuditQuery(limit: AuditQuery.maximumLimit)).last)
            #expect(try await store.auditEntries(AuditQuery(beforeID: oldest.id)) == [])
        }
    }

    func auditPurge() async throws {
        try await withStore { store in
            let entries = (0..<5).map { index in
                NewAuditEntry(at: t0 + Int64(index) * 100, kind: .admin, actor: "api", action: "app.create", outcome: "ok")
            }
            try await store.appendAudit(entries)
            let newestBefore = try #require(try await store.auditEntries(AuditQuery(limit: 1)).first)
            #expect(try await store.purgeAudit(before: t0 + 200) == 2)
            #expect(try await store.auditEntries(AuditQuery()).map(\.entry) == entries[2...].reversed())
            #expect(try await store.purgeAudit(before: t0 + 200) == 0)
            #expect(try await store.purgeAudit(before: t0 + 1_000) == 3)
            #expect(try await store.auditEntries(AuditQuery()) == [])
            // Ids are not reused after a purge: a cursor from before never skips a newer entry.
            try await store.appendAudit([entries[0]])
            let fresh = try await store.auditEntries(AuditQuery())
            #expect(fresh.count == 1)
            #expect(fresh.first.map { $0.id > newestBefore.id } == true)
        }
    }

    func auditConcurrentAppends() async throws {
        try await withStores(2) { stores in
            let outcomes = await race(
                (0..<24).map { index in
                    let store = stores[index % 2]
                    let batch = (0..<3).map { part in
                        NewAuditEntry(
                            at: t0, kind: .signInRejected, actor: nil, action: "sign_in.rejected",
                            outcome: "eit_expired", objectID: "\(index)-\(part)", count: Int64(part + 1))
                    }
                    return { @Sendable in try await store.appendAudit(batch) }
                })
            #expect(outcomes.compactMap(\.value).count == 24)
            let read = try await stores[1].auditEntries(AuditQuery(limit: AuditQuery.maximumLimit))
            #expect(read.count == 72)
            #expect(Set(read.map(\.id)).count == 72)
            #expect(Set(read.compactMap(\.entry.objectID)).count == 72)
            #expect(read.map(\.entry.count).reduce(0, +) == 24 * 6)
            // Each batch kept its order: its entries' ids increase with `part`.
            let byBatch = Dictionary(grouping: read) { $0.entry.objectID?.split(separator: "-").first.map(String.init) ?? "" }
            for (_, batch) in byBatch {
                let ordered = batch.sorted { $0.id < $1.id }.map(\.entry.count)
                #expect(ordered == [1, 2, 3])
            }
        }
    }

    func keyLastVerified() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let provider = try await store.addProvider(apps: [app.id])
            let key = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active, publicKeyPEM: "pem",
                fingerprint: "sha256:" + String(repeating: "12", count: 32), createdAt: t0)
            var other = key
            other.id = UUID()
            other.fingerprint = "sha256:" + String(repeating: "34", count: 32)
            try await store.createKey(key)
            try await store.createKey(other)
            #expect(try await store.key(id: key.id)?.lastVerifiedAt == nil)

            let resolution = KeyRecord.lastVerifiedResolutionSeconds
            func signIn(at time: Int64, keyID: UUID?) async throws {
                _ = try await store.createSession(
                    newSession(
                        app: app.id, user: "u", createdAt: time, expiresAt: time + 3600,
                        nonce: .serverNonce(hash: randomBytes(), expiresAt: time + 600),
                        keyID: keyID))
            }
            try await signIn(at: t0 + 100, keyID: key.id)
            #expect(try await store.key(id: key.id)?.lastVerifiedAt == t0 + 100)
            #expect(try await store.key(id: other.id)?.lastVerifiedAt == nil)
            // Within the resolution: left as it is.
            try await signIn(at: t0 + 100 + resolution - 1, keyID: key.id)
            #expect(try await store.key(id: key.id)?.lastVerifiedAt == t0 + 100)
            // Once the resolution has passed: moved.
            try await signIn(at: t0 + 100 + resolution, keyID: key.id)
            #expect(try await store.key(id: key.id)?.lastVerifiedAt == t0 + 100 + resolution)
            // A sign-in stamped earlier (another instance's clock) never moves it back.
            try await signIn(at: t0, keyID: key.id)
            #expect(try await store.key(id: key.id)?.lastVerifiedAt == t0 + 100 + resolution)
            // No key (Sinch profile), and an unknown key id: nothing changes, the sign-in succeeds.
            try await signIn(at: t0 + 10_000, keyID: nil)
            try await signIn(at: t0 + 10_000, keyID: UUID())
            #expect(try await store.key(id: key.id)?.lastVerifiedAt == t0 + 100 + resolution)
            #expect(try await store.key(id: other.id)?.lastVerifiedAt == nil)

            // A refused sign-in (nonce reused; suspended user) leaves the key untouched.
            let nonce = NonceClaim.serverNonce(hash: randomBytes(), expiresAt: t0 + 20_000)
            _ = try await store.createSession(newSession(app: app.id, user: "u", createdAt: t0 + 10_000, nonce: nonce))
            await #expect(throws: StoreError.nonceAlreadyUsed) {
                try await store.createSession(newSession(app: app.id, user: "u", createdAt: t0 + 10_000, nonce: nonce, keyID: other.id))
            }
            _ = try await store.setSuspended(appID: app.id, userID: "banned", suspended: true, now: t0)
            await #expect(throws: StoreError.userSuspended) {
                try await store.createSession(newSession(app: app.id, user: "banned", createdAt: t0 + 10_000, keyID: other.id))
            }
            #expect(try await store.key(id: other.id)?.lastVerifiedAt == nil)

            // Listings and status changes carry it.
            let listed = try await store.keys(ofProvider: provider.id)
            #expect(listed.map(\.lastVerifiedAt) == [t0 + 100 + resolution, nil])
            #expect(try await store.setKeyStatus(id: key.id, to: .disabled).lastVerifiedAt == t0 + 100 + resolution)
        }
    }

    func raceSignInsWithOneKey() async throws {
        try await withStores(2) { stores in
            let app = try await stores[0].addApp()
            let provider = try await stores[0].addProvider(apps: [app.id])
            let key = KeyRecord(
                id: UUID(), providerID: provider.id, status: .active, publicKeyPEM: "pem",
                fingerprint: "sha256:" + String(repeating: "56", count: 32), createdAt: t0)
            try await stores[0].createKey(key)
            let attempts = (0..<16).map { newSession(app: app.id, user: "user-\($0)", createdAt: t0 + Int64($0), keyID: key.id) }
            let outcomes = await race(
                attempts.enumerated().map { index, attempt in
                    let store = stores[index % 2]
                    return { @Sendable in try await store.createSession(attempt) }
                })
            #expect(outcomes.compactMap(\.value).count == 16)
            // All within one resolution: whichever came first set it, and it is one of theirs.
            let verified = try #require(try await stores[1].key(id: key.id)?.lastVerifiedAt)
            #expect((t0..<(t0 + 16)).contains(verified))
        }
    }
}
