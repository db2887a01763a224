import Dispatch
import Foundation
import Logging
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

@Suite("SQLiteStore", .timeLimit(.minutes(5)))
struct SQLiteStoreTests {
    /// The shared `Store` conformance checks, each against a fresh database file, with every read
    /// on a connection other than the writer's: queued (`.always`) and on the caller's thread
    /// (`.inline`, as `vouch serve` runs), so that each read-after-write crosses connections.
    @Test("conformance", arguments: StoreConformance.checks, [SQLiteReadConnection.always, .inline])
    func conformance(_ check: StoreConformance.Check, reads: SQLiteReadConnection) async throws {
        try await withTemporaryDirectory { directory in
            // SQLite serves one instance: the race checks get the one store as every "instance"
            // (closing it twice is harmless), so they race its callers, not several processes.
            let conformance = StoreConformance { count, body in
                let store = try await SQLiteStore.open(path: directory.file("\(UUID().uuidString).sqlite"), configuration: .init(readConnection: reads))
                try await closing(store) { try await body(Array(repeating: $0, count: count)) }
            }
            try await check.run(conformance)
        }
    }

    @Test("WAL mode, synchronous=FULL, foreign keys and busy timeout are on")
    func pragmas() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await withSQLiteStore(at: path) { store in
                #expect(try await store.pragma("journal_mode") == "wal")
                #expect(try await store.pragma("synchronous") == "2")
                #expect(try await store.pragma("foreign_keys") == "1")
                #expect(try await store.pragma("busy_timeout") == "\(SQLiteStore.busyTimeoutMilliseconds)")
                try await store.createApp(makeApp())
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            }
            // journal_mode=WAL is a property of the file: it persists.
            try await withSQLiteStore(at: path) { store async throws in
                #expect(try await store.pragma("journal_mode") == "wal")
            }
        }
    }

    @Test("migrations are recorded once and not re-applied on reopen")
    func migrationsRecordedAndIdempotent() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let versions = SQLiteMigrations.all.map(\.version)
            #expect(versions.first == 1)
            let before = Int64(Date().timeIntervalSince1970)

            let first = try await withSQLiteStore(at: path) { try await $0.appliedMigrations() }
            #expect(first.map(\.version) == versions)
            #expect(first.allSatisfy { $0.appliedAt >= before && $0.appliedAt <= before + 60 })

            let app = makeApp()
            try await withSQLiteStore(at: path) { try await $0.createApp(app) }
            let second = try await withSQLiteStore(at: path) { store in
                #expect(try await store.app(id: app.id) == app)
                return try await store.appliedMigrations()
            }
            #expect(second.map(\.version) == versions)
            #expect(second.map(\.appliedAt) == first.map(\.appliedAt))
        }
    }

    @Test("in one group commit, an operation that fails keeps nothing of its own and spoils nothing of the others")
    func groupFailures() async throws {
        try await withTemporaryDirectory { directory in
            try await withSQLiteStore(at: directory.file("vouch.sqlite")) { store in
                try await store.exclusive("setup") { db in try db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY) STRICT") }
                struct Refused: Error {}
                // Hold the queue so that every transaction below waits, and all go in one group.
                let gate = DispatchSemaphore(value: 0)
                let held = Task { try await store.worker.run { _ in gate.wait() } }
                try await Task.sleep(for: .milliseconds(50))
                let writes: [@Sendable (SQLiteRunner) throws -> Void] = [
                    { db in try db.execute("INSERT INTO t (x) VALUES (1)") },
                    // Fails before writing: nothing to undo.
                    { _ in throw Refused() },
                    { db in try db.execute("INSERT INTO t (x) VALUES (2)") },
                    // Fails after writing: its row must go, and only its row.
                    { db in
                        try db.execute("INSERT INTO t (x) VALUES (3)")
                        throw Refused()
                    },
                    // Fails in SQLite itself (a duplicate key): the statement undoes itself.
                    { db in try db.execute("INSERT INTO t (x) VALUES (1)") },
                    { db in try db.execute("INSERT INTO t (x) VALUES (4)") },
                ]
                let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for (index, write) in writes.enumerated() {
                        group.addTask {
                            do {
                                try await store.transaction("write \(index)", write)
                                return (index, true)
                            } catch { return (index, false) }
                        }
                    }
                    try await Task.sleep(for: .milliseconds(100))
                    gate.signal()
                    return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
                }
                try await held.value
                #expect(outcomes == [0: true, 1: false, 2: true, 3: false, 4: false, 5: true])
                let rows = try await store.exclusive("read") { db in try db.rows("SELECT x FROM t ORDER BY x").map { try $0.int64("x") } }
                #expect(rows == [1, 2, 4])
            }
        }
    }

    @Test("the WAL is copied into the database beside the writer, which keeps only a backstop of its own")
    func backgroundCheckpoint() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let store = try await SQLiteStore.open(path: path, configuration: .init(readConnection: .always))
            do {
                #expect(try await store.pragma("wal_autocheckpoint") == "\(SQLiteCheckpointer.writerBackstopPages)")
                let checkpointer = try #require(store.checkpointer)
                let app = try await store.addApp()
                // Enough sign-ins to pass the threshold, far too few pages for the backstop.
                for batch in 0..<((SQLiteCheckpointer.operationsPerCheckpoint + 99) / 100) {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for index in 0..<100 {
                            group.addTask { _ = try await store.createSession(newSession(app: app.id, user: "u\(batch)-\(index)")) }
                        }
                        try await group.waitForAll()
                    }
                }
                let deadline = ContinuousClock.now + .seconds(60)
                while checkpointer.completedCheckpoints == 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(checkpointer.completedCheckpoints >= 1, "a checkpoint ran on its own connection")
                // What it left behind, if anything, is copied by the next one: nothing is lost.
                let now = try #require(await checkpointer.checkpointNow())
                #expect(now.checkpointedPages == now.logPages)
                #expect(try await store.activeSessionCount(appID: app.id, userID: "u0-0", now: t0) == 1)
                try await store.close()
            } catch {
                try await store.close()
                throw error
            }

            // One connection only: no checkpointer, and SQLite's own checkpoint as usual.
            let single = try await SQLiteStore.open(path: directory.file("single.sqlite"), configuration: .init(readConnection: .never))
            #expect(single.checkpointer == nil)
            #expect(try await single.pragma("wal_autocheckpoint") == "1000")
            try await single.close()
        }
    }

    @Test("under writes that never pause, the log starts over after each background checkpoint")
    func logStartsOverUnderStorm() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await closing(try await SQLiteStore.open(path: path, configuration: .init(readConnection: .always))) { store in
                let checkpointer = try #require(store.checkpointer)
                let app = try await store.addApp()
                let before = try walCheckpointSequence(path + "-wal")
                let cycles = 4
                let total = cycles * SQLiteCheckpointer.operationsPerCheckpoint
                // 64 sign-ins in flight until the last: the writer never waits for work, so no
                // transaction of its own would begin with the whole log copied back.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var started = 0
                    func startOne() {
                        let index = started
                        started += 1
                        group.addTask { _ = try await store.createSession(newSession(app: app.id, user: "u\(index)")) }
                    }
                    while started < 64 { startOne() }
                    while try await group.next() != nil {
                        if started < total { startOne() }
                    }
                }
                let after = try walCheckpointSequence(path + "-wal")
                #expect(checkpointer.completedCheckpoints >= cycles - 2)
                #expect(checkpointer.copiedTails >= cycles - 2, "tails copied: \(checkpointer.copiedTails)")
                #expect(after - before >= UInt32(cycles - 2), "the log started over \(after - before) times")
                #expect(try await store.activeSessionCount(appID: app.id, userID: "u\(total - 1)", now: t0) == 1)
            }
        }
    }

    @Test("version 4 re-keys used server nonces by expiry: a nonce used before the upgrade stays used")
    func nonceRekeyMigration() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let hash = randomBytes(), expiresAt = t0 + 600
            // A database as version 3 left it, with one used nonce.
            try makeDatabase(at: path, asVersion: 3, app: app) { db in
                try db.execute("INSERT INTO used_server_nonces (hash, expires_at) VALUES (?, ?)", [.bytes(hash), .int64(expiresAt)])
            }

            try await withSQLiteStore(at: path) { store in
                #expect(try await store.appliedMigrations().map(\.version) == SQLiteMigrations.all.map(\.version))
                #expect(try await store.serverNonceUsed(hash: hash, expiresAt: expiresAt))
                #expect(
                    try await store.signInFacts(
                        SignInFactsQuery(
                            appID: app.id, serverNonce: ServerNonceUse(hash: hash, expiresAt: expiresAt), now: t0)
                    ).serverNonceUsed == true)
                // Its use is still refused a second time, and purged once it has expired.
                await #expect(throws: StoreError.nonceAlreadyUsed) {
                    _ = try await store.createSession(newSession(app: app.id, user: "u", nonce: .serverNonce(hash: hash, expiresAt: expiresAt)))
                }
                _ = try await store.purgeExpired(now: expiresAt + 1, sessionGraceSeconds: 0)
                #expect(try await store.serverNonceUsed(hash: hash, expiresAt: expiresAt) == false)
            }
        }
    }

    @Test("an appended migration is applied once; a newer schema is refused by this build")
    func appendedMigrationAndNewerSchema() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let latest = try #require(SQLiteMigrations.all.last?.version)
            let next = SQLiteMigration(
                version: latest + 1,
                statements: [
                    "CREATE TABLE extra (x INTEGER NOT NULL) STRICT",
                    "INSERT INTO extra (x) VALUES (7)",
                ])
            try await withSQLiteStore(at: path) { store in
                let logger = store.logger
                let applied = try await store.exclusive("test") { db in
                    try SQLiteMigrations.apply(SQLiteMigrations.all + [next], on: db, now: 42, logger: logger)
                }
                #expect(applied.from == latest)
                #expect(applied.to == latest + 1)
                let again = try await store.exclusive("test") { db in
                    try SQLiteMigrations.apply(SQLiteMigrations.all + [next], on: db, now: 43, logger: logger)
                }
                #expect(again.from == latest + 1)
                let recorded = try await store.appliedMigrations()
                #expect(recorded.map(\.version) == SQLiteMigrations.all.map(\.version) + [latest + 1])
                #expect(recorded.last?.appliedAt == 42)
            }
            // This build knows only up to `latest`: it must not run against the newer schema.
            await #expect(
                throws: StoreError.unavailable(
                    "database schema version \(latest + 1) is newer than this build's \(latest)")
            ) {
                let store = try await SQLiteStore.open(path: path)
                try await store.close()
            }
        }
    }

    @Test("a failed migration leaves the database as it was")
    func failedMigrationRollsBack() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let latest = try #require(SQLiteMigrations.all.last?.version)
            let broken = SQLiteMigration(
                version: latest + 1,
                statements: [
                    "CREATE TABLE half_done (x INTEGER) STRICT",
                    "THIS IS NOT SQL",
                ])
            try await withSQLiteStore(at: path) { store in
                let logger = store.logger
                await #expect(throws: StoreError.self) {
                    try await store.exclusive("test") { db in
                        try SQLiteMigrations.apply(SQLiteMigrations.all + [broken], on: db, now: 42, logger: logger)
                    }
                }
                #expect(try await store.appliedMigrations().map(\.version) == SQLiteMigrations.all.map(\.version))
                // The table of the failed step is gone with it.
                await #expect(throws: StoreError.self) { try await store.execute(rawSQL: "SELECT * FROM half_done") }
                try await store.ping()
            }
        }
    }

    @Test("data survives close and reopen of the same file")
    func durability() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let nonce = randomBytes()
            let session = newSession(
                app: app.id, user: "u", profile: IdentityProfile(displayName: "D"),
                nonce: .serverNonce(hash: nonce, expiresAt: t0 + 600))
            let secret = randomBytes()
            let key = KeyRecord(
                id: UUID(), providerID: UUID(), status: .active, publicKeyPEM: "pem",
                fingerprint: "sha256:00", createdAt: t0)
            try await withSQLiteStore(at: path) { store in
                try await store.createApp(app)
                let provider = ProviderRecord(id: key.providerID, name: "P", appIDs: [app.id], createdAt: t0)
                try await store.createProvider(provider)
                try await store.createKey(key)
                _ = try await store.createSession(session)
                #expect(try await store.secret(named: "s", orInsert: secret) == secret)
            }
            try await withSQLiteStore(at: path) { store async throws in
                #expect(try await store.app(id: app.id) == app)
                #expect(try await store.provider(id: key.providerID)?.appIDs == [app.id])
                #expect(try await store.key(id: key.id) == key)
                #expect(
                    try await store.session(tokenHash: session.tokenHash)
                        == SessionRecord(
                            tokenHash: session.tokenHash, appID: app.id, userID: "u",
                            createdAt: t0, expiresAt: t0 + 3600, sessionID: session.sessionID))
                #expect(try await store.user(appID: app.id, userID: "u")?.profile.displayName == "D")
                #expect(try await store.serverNonceUsed(hash: nonce, expiresAt: t0 + 600))
                #expect(try await store.secret(named: "s", orInsert: randomBytes()) == secret)
            }
        }
    }

    @Test("UUIDs are stored as lower-case text")
    func uuidsAreLowerCase() async throws {
        try await withTemporaryDirectory { directory in
            try await withSQLiteStore(at: directory.file("vouch.sqlite")) { store in
                let app = makeApp()
                try await store.createApp(app)
                // Matches only if the stored text is exactly the lower-case spelling.
                try await store.execute(rawSQL: "UPDATE apps SET name = 'found' WHERE id = '\(app.id.lowercased)'")
                #expect(try await store.app(id: app.id)?.name == "found")
            }
        }
    }

    @Test("a corrupt row is reported as unavailable, not a crash")
    func corruptRow() async throws {
        try await withTemporaryDirectory { directory in
            try await withSQLiteStore(at: directory.file("vouch.sqlite")) { store in
                try await store.createApp(makeApp())
                try await store.execute(rawSQL: "UPDATE apps SET id = 'not-a-uuid'")
                await #expect(
                    throws: StoreError.unavailable(
                        "corrupt row: column id is missing or has an unexpected value")
                ) {
                    try await store.apps()
                }
                try await store.ping()
            }
        }
    }

    @Test("a file that is not a database fails to open, and the connection is closed again")
    func openFailure() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("garbage.sqlite")
            try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
            // The half-opened connection is closed again: nothing is left open to leak.
            await #expect(throws: StoreError.self) {
                let store = try await SQLiteStore.open(path: path)
                try await store.close()
            }
        }
    }

    @Test("after close every operation is unavailable, and closing again is harmless")
    func useAfterClose() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(path: directory.file("vouch.sqlite"))
            try await store.close()
            try await store.close()
            await #expect(throws: StoreError.unavailable("the store is closed")) { try await store.ping() }
            await #expect(throws: StoreError.unavailable("the store is closed")) { try await store.apps() }
        }
    }

    /// Without the lock, a BEGIN would land inside another task's transaction and fail.
    @Test("concurrent transactions and single statements do not interleave")
    func concurrentOperations() async throws {
        try await withTemporaryDirectory { directory in
            try await withSQLiteStore(at: directory.file("vouch.sqlite")) { store in
                let app = makeApp()
                try await store.createApp(app)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for index in 0..<30 {
                        group.addTask {
                            switch index % 3 {
                            case 0: _ = try await store.createSession(newSession(app: app.id, user: "u"))
                            case 1: _ = try await store.secret(named: "s\(index % 2)", orInsert: randomBytes())
                            default: _ = try await store.purgeExpired(now: t0, sessionGraceSeconds: 0)
                            }
                            _ = try await store.activeSessionCount(appID: app.id, userID: "u", now: t0)
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await store.activeSessionCount(appID: app.id, userID: "u", now: t0) == 10)
            }
        }
    }

    @Test("group commit: of 200 concurrent sign-ins, each failure is its own and every success is durable")
    func groupCommit() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let reused = randomBytes()
            let outcomes = try await withSQLiteStore(at: path) { store in
                try await store.createApp(app)
                _ = try await store.setSuspended(appID: app.id, userID: "suspended", suspended: true, now: t0)
                return try await withThrowingTaskGroup(of: (Int, String).self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            // Every fourth reuses one nonce, every seventh is a suspended user: the
                            // operations that fail share commits with those that succeed.
                            let nonce: NonceClaim =
                                index % 4 == 0
                                ? .serverNonce(hash: reused, expiresAt: t0 + 600)
                                : .serverNonce(hash: randomBytes(), expiresAt: t0 + 600)
                            let user = index % 7 == 0 ? "suspended" : "user-\(index)"
                            do {
                                _ = try await store.createSession(newSession(app: app.id, user: user, nonce: nonce))
                                return (index, "created")
                            } catch StoreError.nonceAlreadyUsed {
                                return (index, "nonce")
                            } catch StoreError.userSuspended {
                                return (index, "suspended")
                            }
                        }
                    }
                    var outcomes: [Int: String] = [:]
                    for try await (index, outcome) in group { outcomes[index] = outcome }
                    return outcomes
                }
            }
            let created = outcomes.keys.filter { outcomes[$0] == "created" }
            let createdWithReusedNonce = created.filter { $0 % 4 == 0 }
            #expect(createdWithReusedNonce.count == 1, "one nonce, one session: \(createdWithReusedNonce.sorted())")
            #expect(outcomes.keys.filter { outcomes[$0] == "suspended" }.allSatisfy { $0 % 7 == 0 })
            #expect(created.allSatisfy { $0 % 7 != 0 })
            #expect(outcomes.count == 200)
            // Reopened: exactly the acknowledged sessions are there, nothing of the refused ones.
            try await withSQLiteStore(at: path) { store in
                var live = 0
                for index in 0..<200 where index % 7 != 0 {
                    live += try await store.activeSessionCount(appID: app.id, userID: "user-\(index)", now: t0)
                }
                #expect(live == created.count)
                #expect(try await store.user(appID: app.id, userID: "suspended")?.suspended == true)
            }
        }
    }
}

/// The WAL header's checkpoint sequence number (bytes 12–15, big-endian), which SQLite increments
/// each time it starts the log over from its beginning.
private func walCheckpointSequence(_ walPath: String) throws -> UInt32 {
    let handle = try #require(FileHandle(forReadingAtPath: walPath))
    defer { try? handle.close() }
    let header = try #require(try handle.read(upToCount: 16))
    try #require(header.count == 16)
    return header[12...15].reduce(0) { $0 << 8 | UInt32($1) }
}
