import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// A ticket's hash is its key: a second ticket with one hash is `.alreadyExists`.
    public func createLiveTicket(_ ticket: LiveTicket) async throws {
        try await single("createLiveTicket") { db in
            try await db.execute(
                """
                INSERT INTO live_tickets (ticket_hash, session_token_hash, expires_at)
                VALUES (\(ticket.ticketHash.bytea), \(ticket.sessionTokenHash.bytea), \(ticket.expiresAt))
                """)
        }
    }

    /// One DELETE … RETURNING: of two consumers on any instances, the second waits for the first's
    /// row lock, then finds the row gone. An expired ticket is deleted too and opens nothing.
    public func consumeLiveTicket(hash: [UInt8], now: Int64) async throws -> [UInt8]? {
        try await single("consumeLiveTicket") { db in
            guard
                let row = try await db.rows(
                    "DELETE FROM live_tickets WHERE ticket_hash = \(hash.bytea) RETURNING session_token_hash, expires_at"
                ).first.map(PostgresRecordRow.init),
                try row.int64("expires_at") >= now
            else { return nil }
            return try row.bytes("session_token_hash")
        }
    }
}
