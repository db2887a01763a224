import Foundation
import Logging
import VouchStore

extension SQLiteStore {
    public func liveSessionCount(now: Int64) async throws -> Int {
        try await read("liveSessionCount") { db in
            let rows = try db.rows("SELECT COUNT(*) AS n FROM sessions WHERE ended_at IS NULL AND expires_at > ?", [.int64(now)])
            guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
            return Int(try row.int64("n"))
        }
    }

    /// Only rows strictly past their expiry go: a nonce still counts as used during its
    /// `expiresAt` second (as `registrationNonceSeen` says), a live ticket opens a socket during
    /// its own (`consumeLiveTicket`), and a session stays readable for
    /// `sessionGraceSeconds` after expiry so the server can still answer "expired" for it.
    @discardableResult
    public func purgeExpired(now: Int64, sessionGraceSeconds: Int64) async throws -> PurgedRows {
        // Sessions go; no user's row or catalogue row changes, so the writer's users and the
        // sign-ins' catalogue rows stay kept through the purge.
        try await transaction("purgeExpired", invalidating: .sessions) { db in
            let nonces = try db.changes(
                "DELETE FROM used_server_nonces WHERE expires_at < ?", [.int64(now)])
            let registrationNonces = try db.changes(
                "DELETE FROM registration_nonces WHERE expires_at < ?", [.int64(now)])
            let (cutoff, overflow) = now.subtractingReportingOverflow(sessionGraceSeconds)
            let sessions =
                overflow
                ? 0
                : try db.changes(
                    "DELETE FROM sessions WHERE expires_at < ?", [.int64(cutoff)])
            let tickets = try db.changes("DELETE FROM live_tickets WHERE expires_at < ?", [.int64(now)])
            try db.execute(
                "DELETE FROM provider_source_key_uses WHERE hour < ?",
                [.int64(SourceKeyUse.hour(of: now) - SourceKeyUse.retentionSeconds)])
            return PurgedRows(
                serverNonces: nonces, registrationNonces: registrationNonces, sessions: sessions, liveTickets: tickets)
        }
    }
}
