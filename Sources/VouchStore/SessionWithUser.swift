/// The read behind every authenticated request on PostgreSQL: the session's row and its user's,
/// joined in one statement (one round trip rather than one look-up after the other).
///
/// The backend appends its own `WHERE s.token_hash = <parameter>` to `selection` and reads the
/// row with `decode`. SQLite makes the two look-ups instead, in one read transaction: there the
/// join was re-prepared on every execution (see `SQLiteStore.sessionAndUser`).
public enum SessionWithUser {
    /// The user's columns come after the session's; `user_id` of the user appears as `user_row`,
    /// NULL when the session's user has no row (a left join).
    public static let selection = """
        SELECT s.token_hash, s.app_id, s.user_id, s.created_at, s.expires_at, s.ended_at, s.end_reason,
               u.user_id AS user_row, u.display_name, u.first_name, u.last_name, u.avatar_url, u.suspended
        FROM sessions s LEFT JOIN users u ON u.app_id = s.app_id AND u.user_id = s.user_id
        """

    public static func decode(_ row: some RecordRow) throws -> (session: SessionRecord, user: UserRecord?) {
        let session = try SessionRecord(row: row)
        guard try row.optionalText("user_row") != nil else { return (session, nil) }
        // `app_id` and `user_id` are the session's, equal to the user's by the join.
        return (session, try UserRecord(row: row))
    }
}
