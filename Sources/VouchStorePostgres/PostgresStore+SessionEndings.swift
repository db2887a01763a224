import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// One statement, one snapshot: the entries and where the log stands. Positions are committed
    /// in order (`SessionEndingLog`), so the highest one visible has every lower one visible too;
    /// after a purge the highest is kept in `session_endings_horizon`.
    public func sessionEndings(after position: Int64, limit: Int) async throws -> SessionEndingsPage {
        try await single("sessionEndings") { db in
            let rows = try await db.rows(
                """
                SELECT e.*, h.oldest, h.latest
                FROM (
                    SELECT (SELECT MIN(position) FROM session_endings) AS oldest,
                           GREATEST((SELECT MAX(position) FROM session_endings),
                                    (SELECT purged_through FROM session_endings_horizon), 0) AS latest
                ) AS h
                LEFT JOIN LATERAL (
                    SELECT * FROM session_endings WHERE position > \(position) ORDER BY position LIMIT \(Int64(max(0, limit)))
                ) AS e ON true
                ORDER BY e.position
                """
            ).map(PostgresRecordRow.init)
            guard let first = rows.first else { throw StoreError.unavailable("session endings: no row") }
            let entries = try rows.filter { try $0.optionalInt64("position") != nil }.map(SessionEnding.init(row:))
            return SessionEndingsPage(
                entries: entries, oldestPosition: try first.optionalInt64("oldest"), latestPosition: try first.int64("latest"))
        }
    }

    /// One statement: a prefix of the log goes (up to the first entry logged at or after
    /// `before`, so what stays has no gap below its newest entry), and the highest position it
    /// deleted is kept so that `latestPosition` survives an emptied log.
    @discardableResult
    public func purgeSessionEndings(before: Int64) async throws -> Int {
        try await single("purgeSessionEndings") { db in
            let rows = try await db.rows(
                """
                WITH gone AS (
                    DELETE FROM session_endings
                    WHERE at < \(before)
                      AND position < COALESCE((SELECT MIN(position) FROM session_endings WHERE at >= \(before)),
                                              9223372036854775807)
                    RETURNING position
                ),
                kept AS (
                    UPDATE session_endings_horizon SET purged_through = GREATEST(purged_through, (SELECT MAX(position) FROM gone))
                    WHERE EXISTS (SELECT 1 FROM gone)
                )
                SELECT COUNT(*)::bigint AS n FROM gone
                """)
            guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
            return Int(try PostgresRecordRow(row).int64("n"))
        }
    }

    /// Runs `SessionEndingLog.appendingSessions` around `update` with `$1` now, `$2` the sessions'
    /// end reason, `$3` the entries' kind, `$4` the events' `data` without its `session_id` and
    /// `selectorValues` from `$5`; returns how many ended.
    static func endLogged(
        _ update: String, now: Int64, reason: SessionEndReason, actor: SecurityEventActor,
        selectorValues: [any PostgresEncodable & Sendable], _ db: PostgresRunner
    ) async throws -> Int {
        var binds = PostgresBindings(capacity: 4 + selectorValues.count)
        binds.append(now)
        binds.append(reason.rawValue)
        binds.append(reason.endingKind.rawValue)
        binds.append(SecurityEventData.sessionEnded(sessionID: nil, kind: SessionEndedKind(reason), actor: actor))
        for value in selectorValues { try binds.append(value) }
        let sql = SessionEndingLog.appendingSessions(
            ended: update, at: "$1", kind: "$3",
            eventData: "($4::jsonb || jsonb_build_object('session_id', e.session_id))::text")
        let rows = try await db.rows(PostgresQuery(unsafeSQL: sql, binds: binds))
        guard let row = rows.first else { throw StoreError.unavailable("COUNT returned no row") }
        return Int(try PostgresRecordRow(row).int64("n"))
    }
}
