import VouchStore

/// How the PostgreSQL store keeps the log of session endings (`session_endings`, migration 5) in
/// commit order, and the SQL its ending operations share.
///
/// Every transaction that appends takes one transaction-scoped advisory lock, ``lockKey``, as its
/// last lock, and only then draws positions from the identity column: it holds the lock until it
/// commits, so the next appender draws higher positions only after this one is visible, and a
/// reader that has seen position `p` has seen every committed entry below it. Taken last (after
/// the sessions', users' or catalogue rows' locks the ending takes), the lock closes no cycle
/// with those row locks: its holder waits for nothing more before its commit. A sign-in never
/// takes it.
enum SessionEndingLog {
    /// `pg_advisory_xact_lock(bigint)`'s key: "voucends" in ASCII. The one-key form is a space of
    /// its own, apart from the migrations' two-key lock (`PostgresMigrations.advisoryLockClass`).
    static let lockKey: Int64 = 0x766F_7563_656E_6473

    /// The NOTIFY channel of the trigger on `session_endings` (migration 5), empty payload.
    static let channel = "vouch_session_endings"

    /// A statement around `update`, an UPDATE of `sessions` that returns `session_id, app_id,
    /// user_id` of the sessions it ended: it appends a `.session` entry for each, at `at` with
    /// the kind `kind` (SQL expressions, parameters), taking the lock only once every row the
    /// UPDATE locks is locked (the COUNT reads all of it first) and only when it ended any. Its
    /// one row, `n`, is how many it ended.
    ///
    /// Each ended session's `session.ended` event (`vouch_record_event`, whose `data` is the
    /// expression `eventData` over `e.session_id`) is recorded before the lock is taken, since
    /// numbering a user's event takes the user's row lock and the log's lock must stay the last.
    static func appendingSessions(ended update: String, at: String, kind: String, eventData: String) -> String {
        """
        WITH ended AS (\(update)),
        events AS (
            SELECT vouch_record_event(e.app_id, e.user_id, 'session.ended', \(at), \(eventData)) AS queued
            FROM ended AS e
        ),
        turn AS (
            SELECT pg_advisory_xact_lock(\(lockKey))
            FROM (SELECT COUNT(*) AS n FROM ended) AS c, (SELECT COUNT(*) AS n FROM events) AS v WHERE c.n > 0
        ),
        appended AS (
            INSERT INTO session_endings (at, kind, scope, session_id, app_id, user_id)
            SELECT \(at), \(kind), 'session', e.session_id, e.app_id, e.user_id FROM ended AS e CROSS JOIN turn
        )
        SELECT COUNT(*)::bigint AS n FROM ended
        """
    }

    /// An UPDATE for `appendingSessions` that ends the sessions matching `selector` (over
    /// `SessionLookupSQL.joins`, alias `s`) that are live by `SessionStanding` at `$1`, with the
    /// reason `$2`. A session ended meanwhile by another transaction is re-checked on its newest
    /// row (`ended_at IS NULL`) and left alone.
    static func endLive(where selector: String) -> String {
        """
        UPDATE sessions SET ended_at = $1, end_reason = $2
        WHERE token_hash IN (
            SELECT s.token_hash\(SessionLookupSQL.joins)
            WHERE s.expires_at > $1 AND \(selector) AND \(SessionLookupSQL.liveCondition))
          AND ended_at IS NULL AND expires_at > $1
        RETURNING session_id, app_id, user_id
        """
    }
}
