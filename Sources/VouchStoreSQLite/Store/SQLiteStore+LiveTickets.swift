import Foundation
import VouchStore

extension SQLiteStore {
    /// A ticket's hash is its key: a second ticket with one hash is `.alreadyExists`.
    public func createLiveTicket(_ ticket: LiveTicket) async throws {
        try await exclusive("createLiveTicket", invalidating: .none) { db in
            try db.execute(
                "INSERT INTO live_tickets (ticket_hash, session_token_hash, expires_at) VALUES (?, ?, ?)",
                [.bytes(ticket.ticketHash), .bytes(ticket.sessionTokenHash), .int64(ticket.expiresAt)])
        }
    }

    /// One DELETE … RETURNING on the single writer: of two consumers, the second finds no row. An
    /// expired ticket is deleted too (it is spent either way) and opens nothing.
    public func consumeLiveTicket(hash: [UInt8], now: Int64) async throws -> [UInt8]? {
        try await exclusive("consumeLiveTicket", invalidating: .none) { db in
            guard
                let row = try db.rows(
                    "DELETE FROM live_tickets WHERE ticket_hash = ? RETURNING session_token_hash, expires_at",
                    [.bytes(hash)]
                ).first,
                try row.int64("expires_at") >= now
            else { return nil }
            return try row.bytes("session_token_hash")
        }
    }
}
