import Foundation
import Logging
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
@testable import VouchStorePostgres
import VouchPostgresTestSupport
import VouchTestSupport

/// What the tests open stores with: small pools, because the checks run in parallel and all share
/// one server's `max_connections`; a deadline generous enough for a loaded two-core machine (the
/// deadline itself is tested where an outage is made on purpose).
let testOptions = PostgresStoreOptions(poolSize: 4, timeout: .seconds(60))

/// Runs `body` with `count` stores open on the database at `url`, each in its own scope.
func withPostgresStores<T>(
    _ count: Int, url: PostgresDatabaseURL,
    options: PostgresStoreOptions = testOptions,
    _ body: ([PostgresStore]) async throws -> T
) async throws -> T {
    try await withPostgresStores(count, url: url, options: options, opened: [], body)
}

private func withPostgresStores<T>(
    _ count: Int, url: PostgresDatabaseURL, options: PostgresStoreOptions, opened: [PostgresStore],
    _ body: ([PostgresStore]) async throws -> T
) async throws -> T {
    guard opened.count < count else { return try await body(opened) }
    return try await PostgresStore.open(url: url, options: options) { store in
        try await withPostgresStores(count, url: url, options: options, opened: opened + [store], body)
    }
}

@Suite("PostgreSQL configured")
struct PostgresConfiguredTests {
    /// The one line that says the PostgreSQL suites were skipped, and the CI rule: there they must run.
    @Test("VOUCH_TEST_DATABASE_URL is set, or this is not CI")
    func configured() {
        guard !PostgresTestDatabase.isConfigured else { return }
        if PostgresTestDatabase.isCI {
            Issue.record("CI=true but \(PostgresTestDatabase.environmentVariable) is not set: the PostgreSQL tests must run in CI")
        } else {
            print(PostgresTestDatabase.skipMessage)
        }
    }
}

@Suite(
    "PostgresStore", .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresStoreTests {
    /// The shared `Store` conformance checks, each on a fresh database; the race checks open two
    /// store instances (two pools) on it.
    @Test("conformance", arguments: StoreConformance.checks)
    func conformance(_ check: StoreConformance.Check) async throws {
        try await PostgresTestDatabase.with { url in
            let conformance = StoreConformance { count, body in try await withPostgresStores(count, url: url) { try await body($0) } }
            try await check.run(conformance)
        }
    }
}

@Suite(
    "PostgresStore specifics", .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresStoreSpecificTests {
    @Test("six instances opening one fresh database at once: migrations applied exactly once, under the advisory lock")
    func concurrentMigrations() async throws {
        try await PostgresTestDatabase.with { url in
            // Each instance, once open, reads the applied migrations and works on the one schema.
            let seen = try await withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await PostgresStore.open(url: url, options: testOptions) { store in
                            #expect(try await store.apps() == [])
                            return try await store.appliedMigrations().map(\.version)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let all = PostgresMigrations.all.map(\.version)
            #expect(seen == Array(repeating: all, count: 6))
            // Reopening applies nothing again.
            let again = try await PostgresStore.open(url: url, options: testOptions) { try await $0.appliedMigrations() }
            #expect(again.map(\.version) == all)
        }
    }

    @Test("the store lives in its scope: what the body throws comes out, and afterwards the store is closed")
    func scope() async throws {
        try await PostgresTestDatabase.with { url in
            let escaped = Shared<PostgresStore?>(nil)
            await #expect(throws: TestFailure.self) {
                try await PostgresStore.open(url: url, options: testOptions) { store in
                    escaped.set(store)
                    #expect(try await store.apps() == [])
                    throw TestFailure("the body's own error")
                }
            }
            let store = try #require(escaped.value)
            let started = ContinuousClock.now
            await #expect(throws: StoreError.unavailable("the store is closed")) { try await store.apps() }
            // At once: no connection is tried (far below the test timeout of 60 s).
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test("the timeout is the server's statement_timeout and lock_timeout too")
    func timeoutsReachTheServer() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresStore.open(url: url, options: PostgresStoreOptions(poolSize: 2, timeout: .seconds(30))) { store async throws in
                #expect(try await store.setting("statement_timeout") == "30s")
                #expect(try await store.setting("lock_timeout") == "30s")
                #expect(try await store.setting("application_name") == "vouch")
            }
        }
    }

    @Test("an unreachable server fails the open within the timeout, and the error shows no password")
    func unreachable() async throws {
        let url = try PostgresDatabaseURL("postgres://vouch:hunter2-secret@127.0.0.1:1/vouch?sslmode=disable")
        let started = ContinuousClock.now
        do {
            try await PostgresStore.open(url: url, options: PostgresStoreOptions(poolSize: 1, timeout: .seconds(1))) { _ -> Void in
                Issue.record("opened a store on a port nothing listens on")
            }
        } catch {
            let text = "\(error) \(String(reflecting: error))"
            #expect(!text.contains("hunter2"), "\(text)")
            #expect(text.contains("postgres://vouch:***@127.0.0.1:1/vouch"), "\(text)")
        }
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}

@Suite("PostgresDatabaseURL")
struct PostgresDatabaseURLTests {
    @Test("parses user, password, host, port, database and sslmode; redacts the password")
    func parse() throws {
        let url = try PostgresDatabaseURL("postgres://app:p%40ss@db.internal:6543/vouch?sslmode=require")
        #expect(url.username == "app")
        #expect(url.password == "p@ss")
        #expect(url.host == "db.internal")
        #expect(url.port == 6543)
        #expect(url.database == "vouch")
        #expect(url.tlsMode == .require)
        #expect(url.redacted == "postgres://app:***@db.internal:6543/vouch?sslmode=require")
        #expect("\(url)" == url.redacted)
        #expect(try PostgresDatabaseURL(url.unredactedString).password == "p@ss")

        let defaults = try PostgresDatabaseURL("postgresql://app@localhost")
        #expect(defaults.port == 5432 && defaults.database == "app" && defaults.tlsMode == .prefer && defaults.password == nil)
    }

    @Test(
        "bad URLs are refused with a message that does not repeat the password",
        arguments: [
            "mysql://u:topsecret@h/d", "postgres://:topsecret@h/d", "postgres://u:topsecret@/d",
            "postgres://u:topsecret@h/d?sslmode=verify-full", "postgres://u:topsecret@h/d?password=x",
        ])
    func refused(_ text: String) {
        do {
            _ = try PostgresDatabaseURL(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(!"\(error)".contains("topsecret"), "\(error)")
        }
    }
}
