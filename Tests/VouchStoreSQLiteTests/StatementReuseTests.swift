import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// The prepared-statement cache only pays when SQLite runs a cached statement as it was planned.
/// A statement whose plan looked at a bound value is prepared again at every new binding, which
/// the cache hides: a join of sessions and users did that on every authenticated request.
@Suite("Statement reuse", .timeLimit(.minutes(1)))
struct StatementReuseTests {
    @Test("the reads behind every request and every sign-in are never prepared again")
    func hotReadsAreNotReprepared() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            var tokens: [[UInt8]] = []
            for index in 0..<8 {
                let session = newSession(app: app.id, user: "user-\(index)")
                _ = try await store.createSession(session)
                tokens.append(session.tokenHash)
            }
            // Reads one after the other take the pool's one connection: every statement
            // below is cached there, bound again with other values each time. A statement
            // prepared before the connection first read the schema is prepared once more
            // (BEGIN is): a warm-up round takes those, and no later round may add any.
            func round(_ index: Int, _ token: [UInt8]) async throws {
                #expect(try await store.sessionLookup(tokenHash: token)?.session.userID == "user-\(index)")
                _ = try await store.signInFacts(
                    SignInFactsQuery(
                        appID: app.id, serverNonce: ServerNonceUse(hash: randomBytes(), expiresAt: t0 + Int64(index)),
                        userID: "user-\(index)", now: t0, includesApp: true, keyID: UUID()))
            }
            try await round(0, tokens[0])
            let afterWarmUp = try await store.read("reprepares") { $0.handle.repreparedStatements }
            for (index, token) in tokens.enumerated() { try await round(index, token) }
            #expect(try #require(store.inlineReaders).openedCount == 1)
            let reprepared = try await store.read("reprepares") { $0.handle.repreparedStatements }
            #expect(reprepared == afterWarmUp, "prepared again at a new binding: \(reprepared), after warming up: \(afterWarmUp)")

            // The counter sees what it is for: the join that was prepared again every time.
            let join = SessionLookupSQL.selection + " WHERE s.token_hash = ?"
            let hashes = tokens
            let joinReprepared = try await store.read("join") { db in
                for token in hashes { _ = try db.rows(join, [.bytes(token)]) }
                return db.handle.reprepareCount
            }
            #expect(joinReprepared >= tokens.count - 1, "the join was planned once and reused: \(joinReprepared)")
        }
    }

    @Test("the sign-in's writes are never prepared again, and build no temporary table")
    func signInWritesAreNotReprepared() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            // Every statement a sign-in's transaction can run: both nonce claims, the user's
            // select, the upsert of a new user and of a changed profile, the session's
            // insert and the key's last-verified mark; each bound with new values per round.
            func round(_ index: Int) async throws {
                let user = "user-\(index)"
                _ = try await store.createSession(newSession(app: app.id, user: user, keyID: UUID()))
                _ = try await store.createSession(newSession(app: app.id, user: user, keyID: UUID()))
                _ = try await store.createSession(
                    newSession(
                        app: app.id, user: user, profile: IdentityProfile(displayName: "Name \(index)"),
                        nonce: .registrationNonce(appID: app.id, nonce: "nonce-\(index)", expiresAt: t0 + 600)))
            }
            func writerReprepares() async throws -> [String: Int] {
                try await store.worker.run { $0.handle.repreparedStatements }
            }
            try await round(0)
            let cached = try await store.worker.run { $0.handle.cachedStatements }
            for part in [
                "INSERT INTO used_server_nonces", "INSERT INTO registration_nonces", "SELECT * FROM users",
                "INSERT INTO users", "INSERT INTO sessions", "UPDATE provider_keys SET last_verified_at",
            ] {
                #expect(cached.contains { $0.contains(part) }, "the round ran no statement with \(part)")
            }
            let afterWarmUp = try await writerReprepares()
            let runsBefore = try await store.worker.run { $0.handle.statementRuns }
            for index in 1...8 { try await round(index) }
            let reprepared = try await writerReprepares()
            #expect(reprepared == afterWarmUp, "prepared again at a new binding: \(reprepared), after warming up: \(afterWarmUp)")

            // Nor does any of them build a temporary B-tree as it runs: SQLite gathers a
            // RETURNING clause's rows in one, with a page cache of its own made and torn down at
            // every execution, which costs a sign-in more than its inserts (docs/PERFORMANCE.md, "The durable write").
            let ephemeral = try await store.worker.run { db in
                let ranInRounds = db.handle.statementRuns.filter { sql, runs in runs > runsBefore[sql] ?? 0 }.keys
                return try ranInRounds.filter { sql in
                    try db.rows("EXPLAIN " + sql).contains { $0.column("opcode")?.string == "OpenEphemeral" }
                }
            }
            #expect(ephemeral.isEmpty, "statements that open an ephemeral table: \(ephemeral)")

            // The check sees what it is for.
            let returning = "INSERT INTO used_server_nonces (expires_at, hash) VALUES (?, ?) ON CONFLICT DO NOTHING RETURNING 1"
            let opens = try await store.worker.run { db in
                try db.rows("EXPLAIN " + returning).contains { $0.column("opcode")?.string == "OpenEphemeral" }
            }
            #expect(opens, "EXPLAIN of a RETURNING statement showed no ephemeral table")
        }
    }
}
