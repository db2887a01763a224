import Foundation
import Logging
import PostgresNIO
import VouchStore

extension PostgresStore {
    public func liveSessionCount(now: Int64) async throws -> Int {
        try await single("liveSessionCount") { db in
            let rows = try await db.rows("SELECT COUNT(*)::bigint AS n FROM sessions WHERE ended_at IS NULL AND expires_at > \(now)")
            guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
            return Int(try PostgresRecordRow(row).int64("n"))
        }
    }

    /// An INSERT … ON CONFLICT DO NOTHING then a SELECT: a concurrent first insert makes this one
    /// wait and then do nothing, and the SELECT (a new snapshot under READ COMMITTED) reads the
    /// value that won, on every instance.
    public func secret(named name: String, orInsert candidate: [UInt8]) async throws -> [UInt8] {
        try await transaction("secret") { db in
            try await db.execute(
                """
                INSERT INTO server_secrets (name, value) VALUES (\(name), \(candidate.bytea)) ON CONFLICT (name) DO NOTHING
                """)
            guard let row = try await db.rows("SELECT value FROM server_secrets WHERE name = \(name)").first else {
                throw StoreError.unavailable("server secret vanished after insert")
            }
            return try PostgresRecordRow(row).bytes("value")
        }
    }

    /// Only rows strictly past their expiry go, as in the SQLite store. Several instances may
    /// purge at once: each DELETE removes what is still there.
    @discardableResult
    public func purgeExpired(now: Int64, sessionGraceSeconds: Int64) async throws -> PurgedRows {
        try await transaction("purgeExpired") { db in
            let nonces = try await db.count("DELETE FROM used_server_nonces WHERE expires_at < \(now) RETURNING 1")
            let registrationNonces = try await db.count(
                "DELETE FROM registration_nonces WHERE expires_at < \(now) RETURNING 1")
            let (cutoff, overflow) = now.subtractingReportingOverflow(sessionGraceSeconds)
            let sessions =
                overflow
                ? 0
                : try await db.count(
                    "DELETE FROM sessions WHERE expires_at < \(cutoff) RETURNING 1")
            let tickets = try await db.count("DELETE FROM live_tickets WHERE expires_at < \(now) RETURNING 1")
            try await db.execute(
                "DELETE FROM provider_source_key_uses WHERE hour < \(SourceKeyUse.hour(of: now) - SourceKeyUse.retentionSeconds)")
            return PurgedRows(
                serverNonces: nonces, registrationNonces: registrationNonces, sessions: sessions, liveTickets: tickets)
        }
    }
}
