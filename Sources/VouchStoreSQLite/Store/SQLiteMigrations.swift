import Logging
import VouchStore

/// One step of the SQLite schema. Shipped steps are never edited: a change is a new step appended
/// to ``SQLiteMigrations/all``, so that every existing database reaches the same schema.
struct SQLiteMigration: Sendable {
    let version: Int
    /// Several statements, because SQLite prepares only the first statement of a string.
    let statements: [String]
}

enum SQLiteMigrations {
    /// Every migration, in order. Later versions just append.
    static let all: [SQLiteMigration] = [
        SQLiteMigration(
            version: 1,
            statements: [
                """
                CREATE TABLE apps (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    session_ttl_seconds INTEGER NOT NULL,
                    created_at INTEGER NOT NULL
                ) STRICT
                """,
                """
                CREATE TABLE providers (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                ) STRICT
                """,
                """
                CREATE TABLE provider_apps (
                    provider_id TEXT NOT NULL REFERENCES providers (id),
                    app_id TEXT NOT NULL REFERENCES apps (id),
                    PRIMARY KEY (provider_id, app_id)
                ) STRICT, WITHOUT ROWID
                """,
                "CREATE INDEX provider_apps_by_app ON provider_apps (app_id)",
                """
                CREATE TABLE provider_keys (
                    id TEXT PRIMARY KEY NOT NULL,
                    provider_id TEXT NOT NULL REFERENCES providers (id),
                    status TEXT NOT NULL CHECK (status IN ('active', 'disabled', 'deleted')),
                    public_key_pem TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                ) STRICT
                """,
                "CREATE INDEX provider_keys_by_provider ON provider_keys (provider_id, created_at)",
                """
                CREATE TABLE registration_secrets (
                    application_key TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps (id),
                    secret BLOB NOT NULL,
                    created_at INTEGER NOT NULL
                ) STRICT
                """,
                "CREATE INDEX registration_secrets_by_app ON registration_secrets (app_id)",
                """
                CREATE TABLE registration_nonces (
                    app_id TEXT NOT NULL REFERENCES apps (id),
                    nonce TEXT NOT NULL,
                    expires_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, nonce)
                ) STRICT, WITHOUT ROWID
                """,
                "CREATE INDEX registration_nonces_by_expiry ON registration_nonces (expires_at)",
                """
                CREATE TABLE used_server_nonces (
                    hash BLOB PRIMARY KEY NOT NULL,
                    expires_at INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID
                """,
                "CREATE INDEX used_server_nonces_by_expiry ON used_server_nonces (expires_at)",
                """
                CREATE TABLE users (
                    app_id TEXT NOT NULL REFERENCES apps (id),
                    user_id TEXT NOT NULL,
                    display_name TEXT,
                    first_name TEXT,
                    last_name TEXT,
                    avatar_url TEXT,
                    suspended INTEGER NOT NULL DEFAULT 0 CHECK (suspended IN (0, 1)),
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, user_id)
                ) STRICT
                """,
                """
                CREATE TABLE sessions (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    ended_at INTEGER,
                    end_reason TEXT CHECK (end_reason IN ('revoked', 'user_suspended')),
                    CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
                    FOREIGN KEY (app_id, user_id) REFERENCES users (app_id, user_id)
                ) STRICT, WITHOUT ROWID
                """,
                "CREATE INDEX sessions_by_user ON sessions (app_id, user_id)",
                "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
                """
                CREATE TABLE server_secrets (
                    name TEXT PRIMARY KEY NOT NULL,
                    value BLOB NOT NULL,
                    created_at INTEGER NOT NULL DEFAULT (unixepoch())
                ) STRICT
                """,
            ]),
        // Registration secrets can be retired: from `revoked_at` on they verify nothing.
        SQLiteMigration(
            version: 2,
            statements: [
                "ALTER TABLE registration_secrets ADD COLUMN revoked_at INTEGER",
                "CREATE INDEX provider_keys_by_fingerprint ON provider_keys (provider_id, fingerprint)",
            ]),
        // The audit log, and when each key last verified a token. AUTOINCREMENT: an id is never
        // reused after a purge, so a paging cursor never points at a newer entry.
        SQLiteMigration(
            version: 3,
            statements: [
                "ALTER TABLE provider_keys ADD COLUMN last_verified_at INTEGER",
                """
                CREATE TABLE audit_log (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('admin', 'sign_in_rejected')),
                    actor TEXT,
                    action TEXT NOT NULL,
                    outcome TEXT NOT NULL,
                    app_id TEXT,
                    object_type TEXT,
                    object_id TEXT,
                    count INTEGER NOT NULL CHECK (count > 0)
                ) STRICT
                """,
                "CREATE INDEX audit_log_by_at ON audit_log (at)",
                "CREATE INDEX audit_log_by_app ON audit_log (app_id, id)",
                "CREATE INDEX audit_log_by_object ON audit_log (object_id, id)",
            ]),
        // Used server nonces keyed by their expiry first: a nonce's hash is random, so keyed by it
        // alone every sign-in wrote to a random page of the table (and of its expiry index), while
        // nonces used now expire at about the same time and so land on the last pages. The key
        // also serves the purge, so the expiry index goes. A nonce's hash determines its expiry
        // (the nonce carries it), so the key is as unique as the hash was.
        SQLiteMigration(
            version: 4,
            statements: [
                """
                CREATE TABLE used_server_nonces_v4 (
                    expires_at INTEGER NOT NULL,
                    hash BLOB NOT NULL,
                    PRIMARY KEY (expires_at, hash)
                ) STRICT, WITHOUT ROWID
                """,
                "INSERT INTO used_server_nonces_v4 (expires_at, hash) SELECT expires_at, hash FROM used_server_nonces",
                "DROP TABLE used_server_nonces",
                "ALTER TABLE used_server_nonces_v4 RENAME TO used_server_nonces",
            ]),
        // A user's sessions found through the live sessions rather than an index of their own
        // (see `UserSessionStatements`): an index by user put every sign-in's entry on a random
        // page, written alone. The expiry index carries the session's key and its user instead:
        // ordered by expiry and then by the key, which leads with the microsecond the session was
        // made, its entries append; the user in each entry lets the user-wide operations skip
        // everyone else's rows. The purge uses it by its first column, as it used the old one.
        SQLiteMigration(
            version: 5,
            statements: [
                "DROP INDEX sessions_by_user",
                "DROP INDEX sessions_by_expiry",
                "CREATE INDEX sessions_by_expiry_and_user ON sessions (expires_at, token_hash, app_id, user_id)",
            ]),
        // Cutoffs and devices. Apps, providers, keys and users get a cutoff generation (0 until the
        // first cutoff); a session records each of its objects' generations when it is made, which
        // provider and key opened it, a public id, its device and when it was last used. The table
        // is rebuilt because SQLite cannot change the CHECK on `end_reason` (`signed_out` is new).
        // The public id is indexed, as its 16 bytes: it is time-ordered (`PublicSessionID`), so the
        // index appends. Sessions made before this step get 16 random bytes as their id, and no
        // provider or key.
        SQLiteMigration(
            version: 6,
            statements: [
                "ALTER TABLE apps ADD COLUMN cutoff_generation INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE apps ADD COLUMN cutoff_at INTEGER",
                "ALTER TABLE apps ADD COLUMN cutoff_reason TEXT",
                "ALTER TABLE providers ADD COLUMN cutoff_generation INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE providers ADD COLUMN cutoff_at INTEGER",
                "ALTER TABLE providers ADD COLUMN cutoff_reason TEXT",
                "ALTER TABLE provider_keys ADD COLUMN cutoff_generation INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE provider_keys ADD COLUMN cutoff_at INTEGER",
                "ALTER TABLE provider_keys ADD COLUMN cutoff_reason TEXT",
                "ALTER TABLE users ADD COLUMN cutoff_generation INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE users ADD COLUMN cutoff_at INTEGER",
                "ALTER TABLE users ADD COLUMN cutoff_reason TEXT",
                """
                CREATE TABLE sessions_v6 (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    session_id BLOB NOT NULL CHECK (length(session_id) = 16),
                    app_id TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    ended_at INTEGER,
                    -- ORs, not IN: SQLite checks an IN list of three or more through an ephemeral
                    -- table built at every insert (a sign-in's cost, see `StatementReuseTests`).
                    end_reason TEXT CHECK (end_reason = 'revoked' OR end_reason = 'user_suspended' OR end_reason = 'signed_out'),
                    provider_id TEXT,
                    key_id TEXT,
                    app_generation INTEGER NOT NULL DEFAULT 0,
                    provider_generation INTEGER,
                    key_generation INTEGER,
                    user_generation INTEGER NOT NULL DEFAULT 0,
                    device_name TEXT,
                    device_platform TEXT,
                    device_app_version TEXT,
                    last_seen_at INTEGER,
                    CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
                    FOREIGN KEY (app_id, user_id) REFERENCES users (app_id, user_id)
                ) STRICT, WITHOUT ROWID
                """,
                """
                INSERT INTO sessions_v6 (token_hash, session_id, app_id, user_id, created_at, expires_at, ended_at,
                                         end_reason, last_seen_at)
                SELECT token_hash, randomblob(16), app_id, user_id, created_at, expires_at, ended_at, end_reason, created_at
                FROM sessions
                """,
                "DROP TABLE sessions",
                "ALTER TABLE sessions_v6 RENAME TO sessions",
                "CREATE INDEX sessions_by_expiry_and_user ON sessions (expires_at, token_hash, app_id, user_id)",
                "CREATE UNIQUE INDEX sessions_by_session_id ON sessions (session_id)",
                // The audit log gains users' own actions (kind `user`) and a note (a cutoff's
                // reason); the CHECK on `kind` changes, so the table is rebuilt, ids kept.
                """
                CREATE TABLE audit_log_v6 (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind = 'admin' OR kind = 'sign_in_rejected' OR kind = 'user'),
                    actor TEXT,
                    action TEXT NOT NULL,
                    outcome TEXT NOT NULL,
                    app_id TEXT,
                    object_type TEXT,
                    object_id TEXT,
                    count INTEGER NOT NULL CHECK (count > 0),
                    note TEXT
                ) STRICT
                """,
                """
                INSERT INTO audit_log_v6 (id, at, kind, actor, action, outcome, app_id, object_type, object_id, count)
                SELECT id, at, kind, actor, action, outcome, app_id, object_type, object_id, count FROM audit_log
                """,
                // AUTOINCREMENT's high-water mark survives the purges the copy cannot show.
                "DELETE FROM sqlite_sequence WHERE name = 'audit_log_v6'",
                "INSERT INTO sqlite_sequence (name, seq) SELECT 'audit_log_v6', seq FROM sqlite_sequence WHERE name = 'audit_log'",
                "DROP TABLE audit_log",
                "ALTER TABLE audit_log_v6 RENAME TO audit_log",
                "CREATE INDEX audit_log_by_at ON audit_log (at)",
                "CREATE INDEX audit_log_by_app ON audit_log (app_id, id)",
                "CREATE INDEX audit_log_by_object ON audit_log (object_id, id)",
            ]),
        // The live channel (PROTOCOL §8.15). The log of session endings: AUTOINCREMENT, so a
        // position is never handed out twice, even after a purge emptied the table, and
        // `sqlite_sequence` keeps the highest one; positions are in commit order because there is
        // one writer. Each scope sets exactly the id columns it needs (`SessionEndingScope.Columns`).
        // Live tickets, kept by their hash like session tokens. The app's challenge margin, its
        // range held by the database too (`AppRecord.challengeMarginRange`).
        SQLiteMigration(
            version: 7,
            statements: [
                """
                CREATE TABLE session_endings (
                    position INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind = 'revoked' OR kind = 'signed_out' OR kind = 'cut_off' OR kind = 'suspended'),
                    scope TEXT NOT NULL CHECK (scope = 'session' OR scope = 'user' OR scope = 'app' OR scope = 'provider' OR scope = 'key'),
                    session_id BLOB CHECK (session_id IS NULL OR length(session_id) = 16),
                    app_id TEXT,
                    user_id TEXT,
                    provider_id TEXT,
                    key_id TEXT,
                    generation INTEGER,
                    reason TEXT,
                    CHECK ((scope = 'session') = (session_id IS NOT NULL)),
                    CHECK ((scope = 'session' OR scope = 'user' OR scope = 'app') = (app_id IS NOT NULL)),
                    CHECK ((scope = 'session' OR scope = 'user') = (user_id IS NOT NULL)),
                    CHECK ((scope = 'provider') = (provider_id IS NOT NULL)),
                    CHECK ((scope = 'key') = (key_id IS NOT NULL)),
                    CHECK ((kind = 'cut_off') = (generation IS NOT NULL))
                ) STRICT
                """,
                "CREATE INDEX session_endings_by_at ON session_endings (at)",
                """
                CREATE TABLE live_tickets (
                    ticket_hash BLOB PRIMARY KEY NOT NULL,
                    session_token_hash BLOB NOT NULL,
                    expires_at INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID
                """,
                "CREATE INDEX live_tickets_by_expiry ON live_tickets (expires_at)",
                // Literals, not `AppRecord`'s constants: a shipped step must not change with them.
                """
                ALTER TABLE apps ADD COLUMN challenge_margin_seconds INTEGER NOT NULL DEFAULT 30
                    CHECK (challenge_margin_seconds >= 5 AND challenge_margin_seconds <= 600)
                """,
            ]),
        // Access tokens (PROTOCOL §8.16). The app's access-token lifetime, its range held by the
        // database (`AppRecord.accessTokenTTLRange`), and its audiences as one text column
        // (`WordListColumn`). Vouch's own signing keys, a chain by `sequence`: its primary key
        // and the unique `key_id` are what lets exactly one of several adders of a successor
        // win (`Store.addSigningKey`). The apps' service credentials, kept by the SHA-256 of
        // their text, which is unique so that a credential names one row.
        SQLiteMigration(
            version: 8,
            statements: [
                // Literals, not `AppRecord`'s constants: a shipped step must not change with them.
                """
                ALTER TABLE apps ADD COLUMN access_token_ttl_seconds INTEGER NOT NULL DEFAULT 300
                    CHECK (access_token_ttl_seconds >= 1 AND access_token_ttl_seconds <= 300)
                """,
                "ALTER TABLE apps ADD COLUMN audiences TEXT NOT NULL DEFAULT ''",
                """
                CREATE TABLE signing_keys (
                    sequence INTEGER PRIMARY KEY NOT NULL,
                    key_id TEXT NOT NULL UNIQUE,
                    algorithm TEXT NOT NULL,
                    private_key BLOB NOT NULL,
                    created_at INTEGER NOT NULL,
                    activates_at INTEGER NOT NULL
                ) STRICT
                """,
                """
                CREATE TABLE service_credentials (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps (id),
                    name TEXT NOT NULL,
                    credential_hash BLOB NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL,
                    revoked_at INTEGER
                ) STRICT
                """,
                "CREATE INDEX service_credentials_by_app ON service_credentials (app_id)",
            ]),
        // Security events (PROTOCOL §8.17): the addresses an app's backend receives them at, each
        // with the kinds it asked for (`WordListColumn`) and the secret its deliveries are signed
        // with, kept as text because Vouch signs with it (the file is its owner's alone).
        SQLiteMigration(
            version: 9,
            statements: [
                """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps (id),
                    url TEXT NOT NULL,
                    events TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    paused_at INTEGER,
                    pause_reason TEXT
                ) STRICT
                """,
                "CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints (app_id)",
            ]),
        // The outbox of security events and the deliveries each owes its endpoints
        // (`Store.claimWebhookDeliveries`). A user's events are numbered by `users.event_sequence`;
        // a delivery repeats its event's position, user and number so that "no earlier pending event of this
        // user for this endpoint" is one index probe. Times of deliveries are in milliseconds.
        SQLiteMigration(
            version: 10,
            statements: [
                "ALTER TABLE users ADD COLUMN event_sequence INTEGER NOT NULL DEFAULT 0",
                """
                CREATE TABLE security_events (
                    position INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    app_id TEXT NOT NULL,
                    user_id TEXT,
                    user_sequence INTEGER,
                    kind TEXT NOT NULL,
                    at INTEGER NOT NULL,
                    data TEXT NOT NULL
                ) STRICT
                """,
                "CREATE INDEX security_events_by_app ON security_events (app_id, position)",
                "CREATE INDEX security_events_by_time ON security_events (at)",
                """
                CREATE TABLE webhook_deliveries (
                    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
                    event_id TEXT NOT NULL REFERENCES security_events (id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    user_id TEXT,
                    user_sequence INTEGER,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    lease_until INTEGER NOT NULL DEFAULT 0,
                    last_attempt_at INTEGER,
                    last_outcome TEXT,
                    delivered_at INTEGER,
                    PRIMARY KEY (endpoint_id, event_id)
                ) STRICT
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'",
                """
                CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (endpoint_id, user_id, user_sequence)
                WHERE state = 'pending'
                """,
                "CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id)",
                "CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (endpoint_id, position)",
            ]),
        // A user's events, for their export (`Store.userData`), and where a stream that starts at
        // a time begins (`Store.securityEventCursor`), each without walking the app's outbox.
        SQLiteMigration(
            version: 11,
            statements: [
                "CREATE INDEX security_events_by_user ON security_events (app_id, user_id, position) WHERE user_id IS NOT NULL",
                "CREATE INDEX security_events_by_app_time ON security_events (app_id, at)",
                // How far expiries have been told (`Store.recordSessionExpiries`): one row.
                "CREATE TABLE session_expiry_events (id INTEGER PRIMARY KEY CHECK (id = 1), through INTEGER NOT NULL) STRICT",
            ]),
        // Key sources (PROTOCOL §8.18): a provider's JWKS URL or OpenID issuer, the last good set
        // fetched from it (one row per provider, shared by every reader of the file), the keys seen
        // in it, and hourly counts of the sign-ins each verified.
        SQLiteMigration(
            version: 12,
            statements: [
                "ALTER TABLE providers ADD COLUMN jwks_uri TEXT",
                "ALTER TABLE providers ADD COLUMN issuer TEXT",
                "ALTER TABLE providers ADD COLUMN client_id TEXT",
                "ALTER TABLE providers ADD COLUMN federated INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE providers ADD COLUMN source_algorithm TEXT",
                "CREATE UNIQUE INDEX providers_by_issuer ON providers (issuer) WHERE issuer IS NOT NULL",
                """
                CREATE TABLE provider_key_sets (
                    provider_id TEXT PRIMARY KEY NOT NULL REFERENCES providers (id),
                    source TEXT NOT NULL,
                    jwks_url TEXT,
                    document TEXT,
                    fetched_at INTEGER,
                    fresh_until INTEGER,
                    attempted_at INTEGER NOT NULL,
                    failing_since INTEGER,
                    last_error TEXT
                ) STRICT
                """,
                """
                CREATE TABLE provider_source_keys (
                    provider_id TEXT NOT NULL REFERENCES providers (id),
                    kid TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    key_type TEXT NOT NULL,
                    first_seen_at INTEGER NOT NULL,
                    last_seen_at INTEGER NOT NULL,
                    present INTEGER NOT NULL,
                    PRIMARY KEY (provider_id, kid, fingerprint)
                ) STRICT
                """,
                """
                CREATE TABLE provider_source_key_uses (
                    provider_id TEXT NOT NULL REFERENCES providers (id),
                    kid TEXT NOT NULL,
                    hour INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (provider_id, kid, hour)
                ) STRICT
                """,
            ]),
    ]

    /// Brings the database up to the newest version in one transaction: either every pending step
    /// is applied and recorded in `schema_migrations`, or none is.
    ///
    /// Refuses a database whose recorded version is newer than this build knows, rather than
    /// running old code against a schema it does not understand.
    ///
    /// - Returns: The version found and the version reached.
    static func apply(
        _ migrations: [SQLiteMigration] = all,
        on db: SQLiteRunner,
        now: Int64,
        logger: Logger
    ) throws -> (from: Int, to: Int) {
        let versions = migrations.map(\.version)
        guard let latest = versions.last, versions.first.map({ $0 > 0 }) == true,
            zip(versions, versions.dropFirst()).allSatisfy({ $0 < $1 })
        else {
            throw StoreError.unavailable("migration versions must be positive and strictly increasing")
        }
        return try db.transaction {
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY NOT NULL,
                    applied_at INTEGER NOT NULL
                ) STRICT
                """)
            let rows = try db.rows("SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations")
            guard let row = rows.first else { throw StoreError.unavailable("schema_migrations: no row") }
            let current = Int(try row.int64("version"))
            guard current <= latest else {
                throw StoreError.unavailable(
                    "database schema version \(current) is newer than this build's \(latest)")
            }
            for migration in migrations where migration.version > current {
                for statement in migration.statements {
                    try db.execute(statement)
                }
                try db.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [.int64(Int64(migration.version)), .int64(now)])
            }
            return (current, latest)
        }
    }
}
