import Foundation
import VouchProtocol

/// Where a reader of the outbox stands (`GET /events`'s `Last-Event-ID`). Events are read in
/// cursor order, and an event that commits later never sorts below a cursor a reader has already
/// passed, so a reader that resumes after its last cursor misses nothing the outbox still keeps.
///
/// SQLite hands out positions in commit order (one writer): `transaction` is 0. PostgreSQL draws
/// positions before commit, so two transactions may commit in the other order; there `transaction`
/// is the writing transaction's id, and a reader is only shown events of transactions older than
/// every transaction still running (`pg_snapshot_xmin`), so nothing can commit below what it saw.
public struct SecurityEventCursor: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var transaction: Int64
    public var position: Int64

    public init(transaction: Int64 = 0, position: Int64) {
        self.transaction = transaction
        self.position = position
    }

    /// Before every event.
    public static let start = SecurityEventCursor(position: 0)

    /// `<position>`, or `<transaction>.<position>` where the backend needs both.
    public var description: String { transaction == 0 ? "\(position)" : "\(transaction).\(position)" }

    /// Reads `description`'s form back; `nil` for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), text.utf8.count <= 41,
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
            let position = Int64(parts[parts.count - 1]), let transaction = parts.count == 2 ? Int64(parts[0]) : 0
        else { return nil }
        self.init(transaction: transaction, position: position)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.transaction, lhs.position) < (rhs.transaction, rhs.position)
    }
}

extension SecurityEventKind {
    /// Whether the store writes the kind whoever listens. Every kind but `session.created` tells
    /// of a rare change (an ending, a suspension, a cutoff, a key, a secret), and the endings are
    /// what services following `GET /events` must never miss; `session.created` comes with every
    /// sign-in, so it is written only while a webhook endpoint of the app subscribes to it.
    public var isWrittenWithoutSubscriber: Bool { self != .sessionCreated }

    /// The kinds that end sessions, `GET /events/sessions`'s filter: what a service verifying
    /// access tokens offline needs to refuse an ended session's token.
    public static let sessionEndingKinds: [SecurityEventKind] = [.sessionEnded, .userSuspended, .userDeleted, .cutoffSet]
}
