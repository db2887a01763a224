import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport

@testable import VouchStoreSQLite

@Suite("schema version 6: cutoffs and devices on a version 5 database")
struct CutoffMigrationTests {
    @Test("sessions keep working with a public id and generation 0; the audit log keeps its ids and never reuses one")
    func upgradeFromVersion5() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            let live = randomBytes(40), ended = randomBytes(40)
            try makeDatabase(at: path, asVersion: 5, app: app) { db in
                try db.execute(
                    "INSERT INTO users (app_id, user_id, created_at, updated_at) VALUES (?, 'u', ?, ?)",
                    [.uuid(app.id), .int64(t0), .int64(t0)])
                try db.execute(
                    "INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at) VALUES (?, ?, 'u', ?, ?)",
                    [.bytes(live), .uuid(app.id), .int64(t0), .int64(t0 + 3600)])
                try db.execute(
                    """
                    INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at, ended_at, end_reason)
                    VALUES (?, ?, 'u', ?, ?, ?, 'revoked')
                    """,
                    [.bytes(ended), .uuid(app.id), .int64(t0), .int64(t0 + 3600), .int64(t0 + 1)])
                // Three audit entries, the newest two purged: the next id must still be 4.
                for at in [t0, t0 + 1, t0 + 2] {
                    try db.execute(
                        "INSERT INTO audit_log (at, kind, action, outcome, count) VALUES (?, 'admin', 'app.create', 'ok', 1)",
                        [.int64(at)])
                }
                try db.execute("DELETE FROM audit_log WHERE id > 1")
            }
            try await withSQLiteStore(at: path) { store async throws in
                let found = try #require(try await store.sessionLookup(tokenHash: live))
                #expect(found.standing(at: t0 + 5) == .live)
                #expect(found.session.generations == SessionGenerations())
                #expect(found.session.providerID == nil && found.session.device == nil)
                #expect(found.session.lastSeenAt == t0)
                let other = try #require(try await store.sessionLookup(tokenHash: ended))
                #expect(other.standing(at: t0 + 5) == .revoked)
                #expect(other.session.sessionID != found.session.sessionID)
                #expect(try await store.sessionLookup(sessionID: found.session.sessionID)?.session.tokenHash == live)
                #expect(try await store.liveSessions(appID: app.id, userID: "u", now: t0 + 5).count == 1)
                // App and user cutoffs reach them.
                #expect(try await store.cutOff(.user(appID: app.id, userID: "u"), reason: nil, now: t0 + 6).sessionsEnded == 1)
                #expect(try await store.sessionLookup(tokenHash: live)?.standing(at: t0 + 6) == .cutOff(.user, reason: nil))

                try await store.appendAudit([NewAuditEntry(at: t0 + 9, kind: .user, actor: "user", action: "a", outcome: "ok", note: "n")])
                let entries = try await store.auditEntries(AuditQuery(limit: 10))
                #expect(entries.map(\.id) == [4, 1], "the purged ids 2 and 3 are not reused")
                #expect(entries.first?.entry.note == "n")
            }
        }
    }
}
