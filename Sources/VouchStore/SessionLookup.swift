import Foundation

/// A session with everything that decides whether it may be used: its user's row (suspension and
/// cutoff) and the current cutoffs of its app, provider and key. What every authenticated request
/// reads, in one store operation; `SessionStanding` judges it.
public struct SessionLookup: Sendable, Equatable {
    public var session: SessionRecord
    /// `nil` when the user has no row (never the case for a session the store made).
    public var user: UserRecord?
    public var cutoffs: CatalogueCutoffs

    public init(session: SessionRecord, user: UserRecord?, cutoffs: CatalogueCutoffs = CatalogueCutoffs()) {
        self.session = session
        self.user = user
        self.cutoffs = cutoffs
    }

    /// Whether the session may be used at `now` (the one rule, `SessionStanding`).
    public func standing(at now: Int64) -> SessionStanding { SessionStanding(of: self, at: now) }
}

/// The joined read of a session and everything its standing needs, for the backends that join
/// (PostgreSQL on every request; both for listings). The backend appends its own `WHERE`.
///
/// The user's columns keep their table's names (`UserRecord(row:)` reads them; `user_row` is NULL
/// when the user has no row); the catalogue's cutoffs carry their table as a prefix.
public enum SessionLookupSQL {
    public static let selection = """
        SELECT s.token_hash, s.session_id, s.app_id, s.user_id, s.created_at, s.expires_at, s.ended_at,
               s.end_reason, s.provider_id, s.key_id, s.app_generation, s.provider_generation,
               s.key_generation, s.user_generation, s.device_name, s.device_platform,
               s.device_app_version, s.last_seen_at,
               u.user_id AS user_row, u.display_name, u.first_name, u.last_name, u.avatar_url, u.suspended,
               u.cutoff_generation, u.cutoff_at, u.cutoff_reason,
               a.cutoff_generation AS app_cutoff_generation, a.cutoff_at AS app_cutoff_at,
               a.cutoff_reason AS app_cutoff_reason,
               p.cutoff_generation AS provider_cutoff_generation, p.cutoff_at AS provider_cutoff_at,
               p.cutoff_reason AS provider_cutoff_reason,
               k.cutoff_generation AS key_cutoff_generation, k.cutoff_at AS key_cutoff_at,
               k.cutoff_reason AS key_cutoff_reason
        """ + joins

    /// The tables `selection` reads, for counts over the same rows.
    public static let joins = """

        FROM sessions s
        LEFT JOIN users u ON u.app_id = s.app_id AND u.user_id = s.user_id
        LEFT JOIN apps a ON a.id = s.app_id
        LEFT JOIN providers p ON p.id = s.provider_id
        LEFT JOIN provider_keys k ON k.id = s.key_id
        """

    /// `SessionStanding.live` as a condition over `joins`, but for expiry (the backend adds
    /// `s.expires_at > <now>` with its own parameter syntax): to count many sessions without
    /// reading each. The conformance suite holds it to `SessionStanding`.
    public static let liveCondition = """
        s.ended_at IS NULL AND NOT COALESCE(u.suspended, FALSE)
        AND (a.cutoff_generation IS NULL OR s.app_generation = a.cutoff_generation)
        AND (p.cutoff_generation IS NULL OR s.provider_generation IS NULL OR s.provider_generation = p.cutoff_generation)
        AND (k.cutoff_generation IS NULL OR s.key_generation IS NULL OR s.key_generation = k.cutoff_generation)
        AND (u.cutoff_generation IS NULL OR s.user_generation = u.cutoff_generation)
        """

    public static func decode(_ row: some RecordRow) throws -> SessionLookup {
        let session = try SessionRecord(row: row)
        // `app_id` and `user_id` are the session's, equal to the user's by the join.
        let user = try row.optionalText("user_row") == nil ? nil : try UserRecord(row: row)
        return SessionLookup(
            session: session, user: user,
            cutoffs: CatalogueCutoffs(
                app: try ScopeCutoff(row: row, prefix: "app_"),
                provider: try ScopeCutoff(row: row, prefix: "provider_"),
                key: try ScopeCutoff(row: row, prefix: "key_")))
    }
}

extension ScopeCutoff {
    /// The cutoff in the columns `<prefix>cutoff_generation`, `…_at`, `…_reason`; `nil` when the
    /// generation is NULL (no such row).
    public init?(row: some RecordRow, prefix: String) throws {
        guard let generation = try row.optionalInt64(prefix + "cutoff_generation") else { return nil }
        self.init(
            generation: generation, at: try row.optionalInt64(prefix + "cutoff_at"),
            reason: try row.optionalText(prefix + "cutoff_reason"))
    }
}
