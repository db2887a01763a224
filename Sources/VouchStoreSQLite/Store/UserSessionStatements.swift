import VouchStore

/// How the SQLite store finds one user's live sessions: through `sessions_by_expiry_and_user`,
/// the index of every session by its expiry, its key and its user (schema version 5).
///
/// There is no index by user. One would put every sign-in's entry on a random page of a B-tree
/// as large as the sessions: a page the sign-in writes alone, logged and later copied back into
/// the database by itself, a large share of the durable write's CPU (docs/PERFORMANCE.md, "The
/// durable write"). Sessions made together expire together and their keys lead with the
/// microsecond they were made, so the expiry index's entries append instead. What the user-wide
/// operations pay for it: they read the index entries of every live session (`expires_at > now`,
/// never an expired one) and test the user in the entry itself, fetching only that user's rows.
/// They are an administrator's operations, rare next to sign-ins; docs/OPERATIONS.md gives their
/// cost per live session. The count runs on the queued reader (`SQLiteStore.read(_:inline:_:)`),
/// not inline on a pool thread.
///
/// The statements bind `?1` the app, `?2` the user and `?3` now; a test holds their query plans
/// to that index.
enum UserSessionStatements {
    /// The user's sessions that are live at `?3` by `SessionStanding` (`SessionLookupSQL.liveCondition`:
    /// neither ended, expired nor cut off).
    static let countLive =
        "SELECT COUNT(*) AS n" + SessionLookupSQL.joins + """

            WHERE s.expires_at > ?3 AND s.app_id = ?1 AND s.user_id = ?2 AND \(SessionLookupSQL.liveCondition)
            """

    /// Them, joined to what judges them (`SessionLookupSQL`), oldest first: what `liveSessions`
    /// filters by `SessionStanding`.
    static let listLive =
        SessionLookupSQL.selection + """

            WHERE s.expires_at > ?3 AND s.app_id = ?1 AND s.user_id = ?2 AND s.ended_at IS NULL
            ORDER BY s.created_at, s.session_id
            """

    /// Ends them at `?3` with the reason `?4`: an ended session keeps its first end, an expired
    /// one stays expired.
    static let endLive = """
        UPDATE sessions SET ended_at = ?3, end_reason = ?4
        WHERE app_id = ?1 AND user_id = ?2 AND ended_at IS NULL AND expires_at > ?3
        """

    /// The public ids of the sessions that `endLive` ended at `?3` with the reason `?4`. Each of
    /// them was live then, so it expires after `?3`: the same search of the index from that second
    /// on. Unordered: asked to order by the id, SQLite would rather walk the whole table in the
    /// order of the id's index than sort the few ids found (the caller sorts them).
    static let endedAt = """
        SELECT session_id FROM sessions
        WHERE expires_at > ?3 AND app_id = ?1 AND user_id = ?2 AND ended_at = ?3 AND end_reason = ?4
        """
}
