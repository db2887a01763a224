import VouchStore

/// The SQLite statements that end sessions and are logged (`session_endings`): each ends exactly
/// the sessions that are live by `SessionStanding` (`SessionLookupSQL.liveCondition`: neither
/// ended, expired nor cut off, their user not suspended) and returns them, so that the caller
/// appends one entry per session it ended and none for a session that was over already.
///
/// RETURNING builds an ephemeral table per execution; these are rare operations, never a sign-in.
enum SessionEndingSQL {
    /// Ends the session whose token hash is `?2` at `?1` (revoked), if live.
    static let endOne = """
        UPDATE sessions SET ended_at = ?1, end_reason = 'revoked'
        WHERE token_hash IN (
            SELECT s.token_hash\(SessionLookupSQL.joins)
            WHERE s.token_hash = ?2 AND s.expires_at > ?1 AND \(SessionLookupSQL.liveCondition))
        RETURNING session_id, app_id, user_id
        """

    /// Ends the live sessions of app `?1` and user `?2` at `?3` with reason `?4`, but the one whose
    /// token hash is `?5` (an empty blob keeps none). The inner search is `UserSessionStatements`'
    /// through the expiry index.
    static let endUsers = """
        UPDATE sessions SET ended_at = ?3, end_reason = ?4
        WHERE token_hash IN (
            SELECT s.token_hash\(SessionLookupSQL.joins)
            WHERE s.expires_at > ?3 AND s.app_id = ?1 AND s.user_id = ?2 AND \(SessionLookupSQL.liveCondition)
              AND s.token_hash <> ?5)
        RETURNING session_id, app_id, user_id
        """

    /// The purge of `purgeSessionEndings(before: ?1)`: a prefix of the log.
    static let purge = """
        DELETE FROM session_endings
        WHERE at < ?1 AND position < COALESCE((SELECT MIN(position) FROM session_endings WHERE at >= ?1), 9223372036854775807)
        """
}
