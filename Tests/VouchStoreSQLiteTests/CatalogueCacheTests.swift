import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// A sign-in's catalogue rows may come from memory only while they are what the file says: a key
/// disabled, a provider unbound, an app changed or a secret revoked is seen by the next sign-in.
@Suite("Catalogue cache", .timeLimit(.minutes(1)))
struct CatalogueCacheTests {
    /// An app, a provider bound to it and an active key, asked about once so that all are kept.
    struct Catalogue {
        let app: AppRecord
        let provider: ProviderRecord
        let key: KeyRecord

        func questions(nonce: [UInt8] = randomBytes(), user: String = "alice") -> SignInFactsQuery {
            SignInFactsQuery(
                appID: app.id, providerID: provider.id, serverNonce: ServerNonceUse(hash: nonce, expiresAt: t0 + 600),
                userID: user, now: t0, includesApp: true, keyID: key.id)
        }
    }

    static func keptCatalogue(_ store: SQLiteStore) async throws -> Catalogue {
        let app = try await store.addApp()
        let provider = try await store.addProvider(apps: [app.id])
        let key = KeyRecord(
            id: UUID(), providerID: provider.id, status: .active, publicKeyPEM: "pem",
            fingerprint: "sha256:" + String(repeating: "cd", count: 32), createdAt: t0)
        try await store.createKey(key)
        let catalogue = Catalogue(app: app, provider: provider, key: key)
        let standing = try await store.signInFacts(catalogue.questions())
        #expect(standing.app == app && standing.key?.status == .active && standing.providerBinding == .bound)
        #expect(store.catalogueCache.count == 3, "the app, the key and the binding are kept")
        return catalogue
    }

    @Test("kept rows are answered from memory; the nonce's use and the user's suspension are read every time")
    func answeredFromMemory() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await withSQLiteStore(at: path) { store in
                let catalogue = try await Self.keptCatalogue(store)
                let nonce = randomBytes()
                // Another connection, not the store: what the file lock keeps out.
                try withOutsideConnection(to: path) { outsider in
                    _ = try outsider.rows("UPDATE provider_keys SET status = 'disabled' WHERE id = ?", [.uuid(catalogue.key.id)])
                    _ = try outsider.rows("INSERT INTO used_server_nonces (expires_at, hash) VALUES (?, ?)", [.int64(t0 + 600), .bytes(nonce)])
                    _ = try outsider.rows(
                        "INSERT INTO users (app_id, user_id, suspended, created_at, updated_at) VALUES (?, 'alice', 1, 0, 0)",
                        [.uuid(catalogue.app.id)])
                }
                let standing = try await store.signInFacts(catalogue.questions(nonce: nonce))
                #expect(standing.key?.status == .active, "kept")
                #expect(standing.serverNonceUsed == true, "read")
                #expect(standing.userSuspended == true, "read")
            }
        }
    }

    @Test("a key disabled, a provider unbound, an app changed: each seen by the next sign-in's read")
    func catalogueWritesSeen() async throws {
        try await withInlineReadingStore { store in
            let catalogue = try await Self.keptCatalogue(store)
            _ = try await store.setKeyStatus(id: catalogue.key.id, to: .disabled)
            #expect(try await store.signInFacts(catalogue.questions()).key?.status == .disabled)

            _ = try await store.updateApp(id: catalogue.app.id, name: nil, sessionTTLSeconds: 60)
            #expect(try await store.signInFacts(catalogue.questions()).app?.sessionTTLSeconds == 60)
            let changes = AppChanges(accessTokenTTLSeconds: 30, audiences: ["https://chat.example.com"])
            _ = try await store.updateApp(id: catalogue.app.id, changes: changes)
            let app = try await store.signInFacts(catalogue.questions()).app
            #expect(app?.accessTokenTTLSeconds == 30 && app?.audiences == ["https://chat.example.com"])

            try await store.unbindProvider(catalogue.provider.id, fromApp: catalogue.app.id)
            #expect(try await store.signInFacts(catalogue.questions()).providerBinding == .notBound)
        }
    }

    @Test("a registration secret revoked is seen by the next sign-in's read")
    func secretRevocationSeen() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            let secret = RegistrationSecretRecord(applicationKey: UUID(), appID: app.id, secret: randomBytes(), createdAt: t0)
            try await store.createRegistrationSecret(secret)
            let questions = SignInFactsQuery(
                appID: app.id, registrationNonce: "n1", now: t0, includesApp: true,
                applicationKey: secret.applicationKey)
            #expect(try await store.signInFacts(questions).registrationSecret?.revokedAt == nil)
            #expect(store.catalogueCache.count == 2)
            _ = try await store.revokeRegistrationSecret(applicationKey: secret.applicationKey, appID: app.id, at: t0 + 5)
            #expect(try await store.signInFacts(questions).registrationSecret?.revokedAt == t0 + 5)
        }
    }

    @Test("writes of signing keys and service credentials, which no cache holds, keep the catalogue")
    func unrelatedWritesKeepCatalogue() async throws {
        try await withInlineReadingStore { store in
            let catalogue = try await Self.keptCatalogue(store)
            #expect(try await store.addSigningKey(makeSigningKey(sequence: 1)))
            try await store.deleteSigningKeys(below: 1)
            let credential = makeServiceCredential(app: catalogue.app.id)
            try await store.createServiceCredential(credential)
            _ = try await store.revokeServiceCredential(id: credential.id, appID: catalogue.app.id, now: t0 + 1)
            #expect(store.catalogueCache.count == 3)
        }
    }

    @Test("a sign-in's mark of its key is in the next read of the key, and sessions' writes keep the rest")
    func keyMarkSeen() async throws {
        try await withInlineReadingStore { store in
            let catalogue = try await Self.keptCatalogue(store)
            _ = try await store.createSession(newSession(app: catalogue.app.id, user: "alice", createdAt: t0, keyID: catalogue.key.id))
            #expect(try await store.signInFacts(catalogue.questions()).key == (try await store.key(id: catalogue.key.id)))
            #expect(try await store.signInFacts(catalogue.questions()).key?.lastVerifiedAt == t0)
            // Within the mark's resolution a sign-in writes no mark, and no session write drops the catalogue.
            let session = newSession(app: catalogue.app.id, user: "bob", createdAt: t0 + 1, keyID: catalogue.key.id)
            _ = try await store.createSession(session)
            try await store.revokeSession(tokenHash: session.tokenHash, now: t0 + 2)
            _ = try await store.setSuspended(appID: catalogue.app.id, userID: "bob", suspended: true, now: t0 + 3)
            #expect(store.catalogueCache.count == 3)
        }
    }

    @Test("a sign-in runs no mark of its key while the kept row shows a recent one, and marks it once that has aged")
    func keyMarkSkipped() async throws {
        try await withTemporaryDirectory { directory in
            // One connection for everything, so that the writer's own statements are counted.
            let store = try await SQLiteStore.open(path: directory.file("vouch.sqlite"), configuration: .init(readConnection: .never))
            try await closing(store) { store in
                let catalogue = try await Self.keptCatalogue(store)
                func marksRun() async throws -> Int {
                    try await store.read("runs") { db in
                        db.handle.statementRuns.filter { $0.key.hasPrefix("UPDATE provider_keys SET last_verified_at") }.values.reduce(0, +)
                    }
                }
                func signIn(_ user: String, at time: Int64) async throws {
                    _ = try await store.createSession(newSession(app: catalogue.app.id, user: user, createdAt: time, keyID: catalogue.key.id))
                    _ = try await store.signInFacts(catalogue.questions())  // keeps the key again if the mark dropped it
                }
                try await signIn("alice", at: t0)
                #expect(try await marksRun() == 1, "never marked: asked for")
                #expect(try await store.key(id: catalogue.key.id)?.lastVerifiedAt == t0)

                let resolution = KeyRecord.lastVerifiedResolutionSeconds
                try await signIn("bob", at: t0 + 1)
                try await signIn("carol", at: t0 + resolution - 1)
                #expect(try await marksRun() == 1, "the kept row shows a mark within the resolution: not asked for")

                try await signIn("dave", at: t0 + resolution)
                #expect(try await marksRun() == 2)
                #expect(try await store.key(id: catalogue.key.id)?.lastVerifiedAt == t0 + resolution)
            }
        }
    }

    @Test("a sign-in whose catalogue rows are all kept reads nothing from the file")
    func keptCatalogueReadsNothing() async throws {
        try await withInlineReadingStore { store in
            let catalogue = try await Self.keptCatalogue(store)
            // What a sign-in asks (its nonce's use and its user's suspension are left to the
            // session's transaction): everything kept.
            var signIn = catalogue.questions()
            signIn.serverNonce = nil
            signIn.userID = nil
            // Reads one after the other take the pool's one connection, whose statements count
            // their own runs; the counting read's own (its transaction's) is the difference of
            // two counts in a row.
            func statementsRun() async throws -> Int {
                try await store.read("runs") { db in db.handle.statementRuns.values.reduce(0, +) }
            }
            let first = try await statementsRun()
            let counting = try await statementsRun() - first
            let standing = try await store.signInFacts(signIn)
            #expect(standing.app == catalogue.app && standing.key == catalogue.key && standing.providerBinding == .bound)
            #expect(standing.serverNonceUsed == nil && standing.userSuspended == nil, "not asked, not answered")
            let before = try await statementsRun()
            #expect(before - first == 2 * counting, "answered from memory: not even a read transaction was begun")

            // The count sees a read: the same questions with the nonce's use asked.
            _ = try await store.signInFacts(catalogue.questions())
            #expect(try await statementsRun() - before > counting)
            #expect(try #require(store.inlineReaders).openedCount == 1)
        }
    }

    @Test("unknown ids are not kept, and a read that raced a catalogue write is not kept")
    func unknownAndRaced() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            _ = try await store.signInFacts(
                SignInFactsQuery(
                    appID: UUID(), providerID: UUID(), now: t0,
                    includesApp: true, keyID: UUID()))
            #expect(store.catalogueCache.count == 0)
            let questions = SignInFactsQuery(appID: app.id, now: t0, includesApp: true)
            let (remaining, _, ticket) = store.catalogueCache.answer(questions)
            let read = SignInFacts(app: app)
            store.catalogueCache.invalidate(.everything)
            store.catalogueCache.keep(read, asked: remaining, since: ticket)
            #expect(store.catalogueCache.count == 0, "read before a write that may have changed it")
            store.catalogueCache.keep(read, asked: remaining, since: store.catalogueCache.answer(questions).ticket)
            #expect(store.catalogueCache.count == 1)
        }
    }

    @Test("--session-cache 0 keeps no catalogue rows either")
    func off() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(path: directory.file("vouch.sqlite"), configuration: .init(sessionCacheCapacity: 0))
            try await closing(store) { store in
                let app = try await store.addApp()
                #expect(try await store.signInFacts(SignInFactsQuery(appID: app.id, now: t0, includesApp: true)).app == app)
                #expect(store.catalogueCache.count == 0)
            }
        }
    }
}
