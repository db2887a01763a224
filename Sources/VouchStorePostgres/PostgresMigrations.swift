import Logging
import PostgresNIO
import VouchStore

/// One step of the PostgreSQL schema. Shipped steps are never edited: a change is a new step
/// appended to ``PostgresMigrations/all``.
struct PostgresMigration: Sendable {
    let version: Int
    /// One statement each: the extended query protocol runs a single statement per query.
    let statements: [String]
}

enum PostgresMigrations {
    /// The first half of the advisory lock's key that serialises migrations across instances
    /// ("vouc" in ASCII); the second half is the hash of the database's name, so that Vouch
    /// databases sharing one server do not wait for each other's migrations.
    static let advisoryLockClass: Int32 = 0x76_6F_75_63

    /// Every migration, in order. Later versions just append.
    ///
    /// The schema mirrors SQLite's, with what READ COMMITTED needs in place of SQLite's single
    /// writer: uniqueness as constraints (a key's fingerprint per provider, a nonce per app), and
    /// `seq` identity columns that give listings the insertion order SQLite's rowid gives.
    static let all: [PostgresMigration] = [
        PostgresMigration(
            version: 1,
            statements: [
                """
                CREATE TABLE apps (
                    id uuid PRIMARY KEY,
                    name text NOT NULL,
                    session_ttl_seconds bigint NOT NULL,
                    created_at bigint NOT NULL,
                    seq bigint GENERATED ALWAYS AS IDENTITY
                )
                """,
                """
                CREATE TABLE providers (
                    id uuid PRIMARY KEY,
                    name text NOT NULL,
                    created_at bigint NOT NULL
                )
                """,
                """
                CREATE TABLE provider_apps (
                    provider_id uuid NOT NULL REFERENCES providers (id),
                    app_id uuid NOT NULL REFERENCES apps (id),
                    PRIMARY KEY (provider_id, app_id)
                )
                """,
                "CREATE INDEX provider_apps_by_app ON provider_apps (app_id)",
                """
                CREATE TABLE provider_keys (
                    id uuid PRIMARY KEY,
                    provider_id uuid NOT NULL REFERENCES providers (id),
                    status text NOT NULL CHECK (status IN ('active', 'disabled', 'deleted')),
                    public_key_pem text NOT NULL,
                    fingerprint text NOT NULL,
                    created_at bigint NOT NULL,
                    seq bigint GENERATED ALWAYS AS IDENTITY,
                    UNIQUE (provider_id, fingerprint)
                )
                """,
                "CREATE INDEX provider_keys_by_provider ON provider_keys (provider_id, created_at, seq)",
                """
                CREATE TABLE registration_secrets (
                    application_key uuid PRIMARY KEY,
                    app_id uuid NOT NULL REFERENCES apps (id),
                    secret bytea NOT NULL,
                    created_at bigint NOT NULL,
                    revoked_at bigint,
                    seq bigint GENERATED ALWAYS AS IDENTITY
                )
                """,
                "CREATE INDEX registration_secrets_by_app ON registration_secrets (app_id)",
                """
                CREATE TABLE registration_nonces (
                    app_id uuid NOT NULL REFERENCES apps (id),
                    nonce text NOT NULL,
                    expires_at bigint NOT NULL,
                    PRIMARY KEY (app_id, nonce)
                )
                """,
                "CREATE INDEX registration_nonces_by_expiry ON registration_nonces (expires_at)",
                """
                CREATE TABLE used_server_nonces (
                    hash bytea PRIMARY KEY,
                    expires_at bigint NOT NULL
                )
                """,
                "CREATE INDEX used_server_nonces_by_expiry ON used_server_nonces (expires_at)",
                """
                CREATE TABLE users (
                    app_id uuid NOT NULL REFERENCES apps (id),
                    user_id text NOT NULL,
                    display_name text,
                    first_name text,
                    last_name text,
                    avatar_url text,
                    suspended boolean NOT NULL DEFAULT false,
                    created_at bigint NOT NULL,
                    updated_at bigint NOT NULL,
                    PRIMARY KEY (app_id, user_id)
                )
                """,
                """
                CREATE TABLE sessions (
                    token_hash bytea PRIMARY KEY,
                    app_id uuid NOT NULL,
                    user_id text NOT NULL,
                    created_at bigint NOT NULL,
                    expires_at bigint NOT NULL,
                    ended_at bigint,
                    end_reason text CHECK (end_reason IN ('revoked', 'user_suspended')),
                    CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
                    FOREIGN KEY (app_id, user_id) REFERENCES users (app_id, user_id)
                )
                """,
                "CREATE INDEX sessions_by_user ON sessions (app_id, user_id)",
                "CREATE INDEX sessions_by_expiry ON sessions (expires_at)",
                """
                CREATE TABLE server_secrets (
                    name text PRIMARY KEY,
                    value bytea NOT NULL,
                    created_at bigint NOT NULL DEFAULT extract(epoch FROM now())::bigint
                )
                """,
            ]),
        // The audit log, and when each key last verified a token.
        PostgresMigration(
            version: 2,
            statements: [
                "ALTER TABLE provider_keys ADD COLUMN last_verified_at bigint",
                """
                CREATE TABLE audit_log (
                    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    at bigint NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('admin', 'sign_in_rejected')),
                    actor text,
                    action text NOT NULL,
                    outcome text NOT NULL,
                    app_id uuid,
                    object_type text,
                    object_id text,
                    count bigint NOT NULL CHECK (count > 0)
                )
                """,
                "CREATE INDEX audit_log_by_at ON audit_log (at)",
                "CREATE INDEX audit_log_by_app ON audit_log (app_id, id)",
                "CREATE INDEX audit_log_by_object ON audit_log (object_id, id)",
            ]),
        // A sign-in's write in one round trip: its statements as one function, which PostgreSQL
        // plans once per connection, rather than five or six round trips inside BEGIN … COMMIT,
        // each parsed and planned again. Called as a single statement it is its own transaction:
        // an exception undoes everything it wrote.
        PostgresMigration(
            version: 3,
            statements: [
                """
                CREATE FUNCTION vouch_create_session(
                    p_server_nonce_hash bytea, p_server_nonce_expires_at bigint,
                    p_registration_app_id uuid, p_registration_nonce text, p_registration_nonce_expires_at bigint,
                    p_app_id uuid, p_user_id text,
                    p_display_name text, p_first_name text, p_last_name text, p_avatar_url text,
                    p_token_hash bytea, p_created_at bigint, p_expires_at bigint,
                    p_key_id uuid, p_key_mark_resolution bigint
                ) RETURNS users
                LANGUAGE plpgsql
                AS $$
                DECLARE
                    account users;
                BEGIN
                    -- 1. The nonce's use, claimed on its key: of two sign-ins with one nonce the second
                    --    waits for the first's row, then finds it and writes nothing.
                    IF p_server_nonce_hash IS NOT NULL THEN
                        INSERT INTO used_server_nonces (hash, expires_at)
                        VALUES (p_server_nonce_hash, p_server_nonce_expires_at)
                        ON CONFLICT (hash) DO NOTHING;
                    ELSE
                        -- A registration nonce whose last use has expired is free again.
                        INSERT INTO registration_nonces AS r (app_id, nonce, expires_at)
                        VALUES (p_registration_app_id, p_registration_nonce, p_registration_nonce_expires_at)
                        ON CONFLICT (app_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
                            WHERE r.expires_at < p_created_at;
                    END IF;
                    IF NOT FOUND THEN
                        RAISE EXCEPTION 'the nonce was used already' USING ERRCODE = 'VU001';
                    END IF;
                    -- 2. The user, upserted: this takes the row lock `setSuspended` takes too, and
                    --    returns the latest committed `suspended`.
                    INSERT INTO users AS u (app_id, user_id, display_name, first_name, last_name, avatar_url,
                                            suspended, created_at, updated_at)
                    VALUES (p_app_id, p_user_id, p_display_name, p_first_name, p_last_name, p_avatar_url,
                            false, p_created_at, p_created_at)
                    ON CONFLICT (app_id, user_id) DO UPDATE SET
                        display_name = COALESCE(EXCLUDED.display_name, u.display_name),
                        first_name = COALESCE(EXCLUDED.first_name, u.first_name),
                        last_name = COALESCE(EXCLUDED.last_name, u.last_name),
                        avatar_url = COALESCE(EXCLUDED.avatar_url, u.avatar_url),
                        updated_at = EXCLUDED.updated_at
                    RETURNING * INTO account;
                    IF account.suspended THEN
                        RAISE EXCEPTION 'the user is suspended' USING ERRCODE = 'VU002';
                    END IF;
                    -- 3. The session.
                    INSERT INTO sessions (token_hash, app_id, user_id, created_at, expires_at)
                    VALUES (p_token_hash, p_app_id, p_user_id, p_created_at, p_expires_at);
                    -- 4. The key's mark, last so that its row lock is held only until the commit; a key
                    --    that verified within the resolution is not matched and takes no lock.
                    IF p_key_id IS NOT NULL THEN
                        UPDATE provider_keys SET last_verified_at = p_created_at
                        WHERE id = p_key_id
                          AND (last_verified_at IS NULL OR last_verified_at <= p_created_at - p_key_mark_resolution);
                    END IF;
                    RETURN account;
                END
                $$
                """
            ]),
        // Cutoffs and devices (SQLite's step 6). A session's public id has a default so that an
        // instance still running the previous build, whose sign-in does not send one, keeps
        // working while the others upgrade; `last_seen_at` NULL means "when it was made".
        PostgresMigration(
            version: 4,
            statements: [
                """
                ALTER TABLE apps ADD COLUMN cutoff_generation bigint NOT NULL DEFAULT 0,
                    ADD COLUMN cutoff_at bigint, ADD COLUMN cutoff_reason text
                """,
                """
                ALTER TABLE providers ADD COLUMN cutoff_generation bigint NOT NULL DEFAULT 0,
                    ADD COLUMN cutoff_at bigint, ADD COLUMN cutoff_reason text
                """,
                """
                ALTER TABLE provider_keys ADD COLUMN cutoff_generation bigint NOT NULL DEFAULT 0,
                    ADD COLUMN cutoff_at bigint, ADD COLUMN cutoff_reason text
                """,
                """
                ALTER TABLE users ADD COLUMN cutoff_generation bigint NOT NULL DEFAULT 0,
                    ADD COLUMN cutoff_at bigint, ADD COLUMN cutoff_reason text
                """,
                """
                ALTER TABLE sessions ADD COLUMN session_id uuid NOT NULL DEFAULT gen_random_uuid(),
                    ADD COLUMN provider_id uuid, ADD COLUMN key_id uuid,
                    ADD COLUMN app_generation bigint NOT NULL DEFAULT 0, ADD COLUMN provider_generation bigint,
                    ADD COLUMN key_generation bigint, ADD COLUMN user_generation bigint NOT NULL DEFAULT 0,
                    ADD COLUMN device_name text, ADD COLUMN device_platform text, ADD COLUMN device_app_version text,
                    ADD COLUMN last_seen_at bigint
                """,
                "CREATE UNIQUE INDEX sessions_by_session_id ON sessions (session_id)",
                "ALTER TABLE audit_log DROP CONSTRAINT audit_log_kind_check",
                """
                ALTER TABLE audit_log ADD CONSTRAINT audit_log_kind_check
                    CHECK (kind IN ('admin', 'sign_in_rejected', 'user')),
                    ADD COLUMN note text
                """,
                "ALTER TABLE sessions DROP CONSTRAINT sessions_end_reason_check",
                """
                ALTER TABLE sessions ADD CONSTRAINT sessions_end_reason_check
                    CHECK (end_reason IN ('revoked', 'user_suspended', 'signed_out'))
                """,
                // The sign-in of `vouch_create_session` with the session's public id, provider,
                // device and generations. The app's, provider's and key's rows are read FOR KEY
                // SHARE: a cutoff takes FOR UPDATE on its row first, so it waits for every sign-in
                // that read the old generation to commit (and counts and ends their sessions),
                // and a sign-in that comes after it waits for its commit and reads the new
                // generation (READ COMMITTED re-reads a locked row's latest version). KEY SHARE,
                // not SHARE: the key's mark below takes the row's NO KEY UPDATE lock, which SHARE
                // held by two sign-ins at once would deadlock on. The user's generation comes
                // from the upserted row, whose lock a user's cutoff takes too.
                """
                CREATE FUNCTION vouch_create_session_v2(
                    p_server_nonce_hash bytea, p_server_nonce_expires_at bigint,
                    p_registration_app_id uuid, p_registration_nonce text, p_registration_nonce_expires_at bigint,
                    p_app_id uuid, p_user_id text,
                    p_display_name text, p_first_name text, p_last_name text, p_avatar_url text,
                    p_token_hash bytea, p_created_at bigint, p_expires_at bigint,
                    p_key_id uuid, p_key_mark_resolution bigint,
                    p_session_id uuid, p_provider_id uuid,
                    p_device_name text, p_device_platform text, p_device_app_version text
                ) RETURNS users
                LANGUAGE plpgsql
                AS $$
                DECLARE
                    account users;
                    app_generation bigint;
                    provider_generation bigint;
                    key_generation bigint;
                BEGIN
                    IF p_server_nonce_hash IS NOT NULL THEN
                        INSERT INTO used_server_nonces (hash, expires_at)
                        VALUES (p_server_nonce_hash, p_server_nonce_expires_at)
                        ON CONFLICT (hash) DO NOTHING;
                    ELSE
                        INSERT INTO registration_nonces AS r (app_id, nonce, expires_at)
                        VALUES (p_registration_app_id, p_registration_nonce, p_registration_nonce_expires_at)
                        ON CONFLICT (app_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
                            WHERE r.expires_at < p_created_at;
                    END IF;
                    IF NOT FOUND THEN
                        RAISE EXCEPTION 'the nonce was used already' USING ERRCODE = 'VU001';
                    END IF;
                    INSERT INTO users AS u (app_id, user_id, display_name, first_name, last_name, avatar_url,
                                            suspended, created_at, updated_at)
                    VALUES (p_app_id, p_user_id, p_display_name, p_first_name, p_last_name, p_avatar_url,
                            false, p_created_at, p_created_at)
                    ON CONFLICT (app_id, user_id) DO UPDATE SET
                        display_name = COALESCE(EXCLUDED.display_name, u.display_name),
                        first_name = COALESCE(EXCLUDED.first_name, u.first_name),
                        last_name = COALESCE(EXCLUDED.last_name, u.last_name),
                        avatar_url = COALESCE(EXCLUDED.avatar_url, u.avatar_url),
                        updated_at = EXCLUDED.updated_at
                    RETURNING * INTO account;
                    IF account.suspended THEN
                        RAISE EXCEPTION 'the user is suspended' USING ERRCODE = 'VU002';
                    END IF;
                    SELECT a.cutoff_generation INTO app_generation FROM apps a WHERE a.id = p_app_id FOR KEY SHARE;
                    IF p_provider_id IS NOT NULL THEN
                        SELECT p.cutoff_generation INTO provider_generation FROM providers p
                        WHERE p.id = p_provider_id FOR KEY SHARE;
                    END IF;
                    IF p_key_id IS NOT NULL THEN
                        SELECT k.cutoff_generation INTO key_generation FROM provider_keys k
                        WHERE k.id = p_key_id FOR KEY SHARE;
                    END IF;
                    INSERT INTO sessions (token_hash, session_id, app_id, user_id, created_at, expires_at,
                                          provider_id, key_id, app_generation, provider_generation, key_generation,
                                          user_generation, device_name, device_platform, device_app_version,
                                          last_seen_at)
                    VALUES (p_token_hash, p_session_id, p_app_id, p_user_id, p_created_at, p_expires_at,
                            p_provider_id, p_key_id, COALESCE(app_generation, 0), provider_generation, key_generation,
                            account.cutoff_generation, p_device_name, p_device_platform, p_device_app_version,
                            p_created_at);
                    IF p_key_id IS NOT NULL THEN
                        UPDATE provider_keys SET last_verified_at = p_created_at
                        WHERE id = p_key_id
                          AND (last_verified_at IS NULL OR last_verified_at <= p_created_at - p_key_mark_resolution);
                    END IF;
                    RETURN account;
                END
                $$
                """,
            ]),
        // The live channel (PROTOCOL §8.15; SQLite's step 7). The log of session endings, whose
        // positions every appending transaction takes under one advisory lock
        // (`SessionEndingLog.lockKey`), last, so that they are handed out in commit order; a
        // trigger tells the listening instances (`SessionEndingLog.channel`) once per statement
        // that appended. A purge keeps the highest position it deleted in
        // `session_endings_horizon`, so that "the highest position ever handed out" survives an
        // emptied log. Live tickets, kept by their hash. The app's challenge margin, its range held
        // by the database too (literals: a shipped step must not change with `AppRecord`).
        PostgresMigration(
            version: 5,
            statements: [
                """
                CREATE TABLE session_endings (
                    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    at bigint NOT NULL,
                    kind text NOT NULL CHECK (kind IN ('revoked', 'signed_out', 'cut_off', 'suspended')),
                    scope text NOT NULL CHECK (scope IN ('session', 'user', 'app', 'provider', 'key')),
                    session_id uuid,
                    app_id uuid,
                    user_id text,
                    provider_id uuid,
                    key_id uuid,
                    generation bigint,
                    reason text,
                    CHECK ((scope = 'session') = (session_id IS NOT NULL)),
                    CHECK ((scope IN ('session', 'user', 'app')) = (app_id IS NOT NULL)),
                    CHECK ((scope IN ('session', 'user')) = (user_id IS NOT NULL)),
                    CHECK ((scope = 'provider') = (provider_id IS NOT NULL)),
                    CHECK ((scope = 'key') = (key_id IS NOT NULL)),
                    CHECK ((kind = 'cut_off') = (generation IS NOT NULL))
                )
                """,
                "CREATE INDEX session_endings_by_at ON session_endings (at)",
                """
                CREATE TABLE session_endings_horizon (
                    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                    purged_through bigint NOT NULL
                )
                """,
                "INSERT INTO session_endings_horizon (only_row, purged_through) VALUES (true, 0)",
                """
                CREATE FUNCTION vouch_notify_session_endings() RETURNS trigger
                LANGUAGE plpgsql
                AS $$
                BEGIN
                    IF EXISTS (SELECT 1 FROM appended) THEN
                        PERFORM pg_notify('vouch_session_endings', '');
                    END IF;
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER session_endings_notify AFTER INSERT ON session_endings
                REFERENCING NEW TABLE AS appended
                FOR EACH STATEMENT EXECUTE FUNCTION vouch_notify_session_endings()
                """,
                """
                CREATE TABLE live_tickets (
                    ticket_hash bytea PRIMARY KEY,
                    session_token_hash bytea NOT NULL,
                    expires_at bigint NOT NULL
                )
                """,
                "CREATE INDEX live_tickets_by_expiry ON live_tickets (expires_at)",
                """
                ALTER TABLE apps ADD COLUMN challenge_margin_seconds bigint NOT NULL DEFAULT 30
                    CONSTRAINT apps_challenge_margin_check CHECK (challenge_margin_seconds BETWEEN 5 AND 600)
                """,
            ]),
        // Access tokens (PROTOCOL §8.16; SQLite's step 8). The app's access-token lifetime, its
        // range held by the database (literals, as the margin's), and its audiences as one text
        // column (`WordListColumn`). Vouch's own signing keys, a chain by `sequence`: of two
        // instances inserting one successor at once, the second waits on the first's uncommitted
        // key in the primary key's (or `key_id`'s) unique index and then, `ON CONFLICT DO
        // NOTHING`, inserts nothing. The apps' service credentials, kept by the SHA-256 of their
        // text, which is unique so that a credential names one row.
        PostgresMigration(
            version: 6,
            statements: [
                """
                ALTER TABLE apps ADD COLUMN access_token_ttl_seconds bigint NOT NULL DEFAULT 300
                    CONSTRAINT apps_access_token_ttl_check CHECK (access_token_ttl_seconds BETWEEN 1 AND 300),
                    ADD COLUMN audiences text NOT NULL DEFAULT ''
                """,
                """
                CREATE TABLE signing_keys (
                    sequence bigint PRIMARY KEY,
                    key_id text NOT NULL UNIQUE,
                    algorithm text NOT NULL,
                    private_key bytea NOT NULL,
                    created_at bigint NOT NULL,
                    activates_at bigint NOT NULL
                )
                """,
                """
                CREATE TABLE service_credentials (
                    id uuid PRIMARY KEY,
                    app_id uuid NOT NULL REFERENCES apps (id),
                    name text NOT NULL,
                    credential_hash bytea NOT NULL UNIQUE,
                    created_at bigint NOT NULL,
                    revoked_at bigint
                )
                """,
                "CREATE INDEX service_credentials_by_app ON service_credentials (app_id)",
            ]),
        // Security events (PROTOCOL §8.17): the addresses an app's backend receives them at, each
        // with the kinds it asked for (`WordListColumn`) and the secret its deliveries are signed
        // with, kept as text because Vouch signs with it.
        PostgresMigration(
            version: 7,
            statements: [
                """
                CREATE TABLE webhook_endpoints (
                    id uuid PRIMARY KEY,
                    app_id uuid NOT NULL REFERENCES apps (id),
                    url text NOT NULL,
                    events text NOT NULL,
                    secret text NOT NULL,
                    created_at bigint NOT NULL,
                    updated_at bigint NOT NULL,
                    paused_at bigint,
                    pause_reason text
                )
                """,
                "CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints (app_id)",
            ]),
        // The outbox of security events and the deliveries each owes its endpoints (SQLite's step
        // 10). `vouch_record_event` writes an event and its deliveries when an unpaused endpoint
        // of the app subscribes to the kind, numbering a user's events under the user's row lock;
        // `vouch_create_session_v3` is v2 followed by its `session.created`, in the same
        // transaction. Times of deliveries are in milliseconds.
        PostgresMigration(
            version: 8,
            statements: [
                "ALTER TABLE users ADD COLUMN event_sequence bigint NOT NULL DEFAULT 0",
                """
                CREATE TABLE security_events (
                    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    id uuid NOT NULL UNIQUE,
                    app_id uuid NOT NULL,
                    user_id text,
                    user_sequence bigint,
                    kind text NOT NULL,
                    at bigint NOT NULL,
                    data text NOT NULL
                )
                """,
                "CREATE INDEX security_events_by_app ON security_events (app_id, position)",
                "CREATE INDEX security_events_by_time ON security_events (at)",
                """
                CREATE TABLE webhook_deliveries (
                    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
                    event_id uuid NOT NULL REFERENCES security_events (id) ON DELETE CASCADE,
                    position bigint NOT NULL,
                    user_id text,
                    user_sequence bigint,
                    state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
                    attempts integer NOT NULL DEFAULT 0,
                    next_attempt_at bigint NOT NULL,
                    lease_until bigint NOT NULL DEFAULT 0,
                    last_attempt_at bigint,
                    last_outcome text,
                    delivered_at bigint,
                    PRIMARY KEY (endpoint_id, event_id)
                )
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending'",
                """
                CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (endpoint_id, user_id, user_sequence)
                WHERE state = 'pending'
                """,
                "CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id)",
                "CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (endpoint_id, position)",
                """
                CREATE FUNCTION vouch_record_event(
                    p_app_id uuid, p_user_id text, p_kind text, p_at bigint, p_data text
                ) RETURNS integer
                LANGUAGE plpgsql
                AS $$
                DECLARE
                    v_sequence bigint;
                    v_id uuid := gen_random_uuid();
                    v_position bigint;
                    v_queued integer;
                BEGIN
                    IF NOT EXISTS (
                        SELECT 1 FROM webhook_endpoints
                        WHERE app_id = p_app_id AND paused_at IS NULL AND p_kind = ANY (string_to_array(events, ' '))
                    ) THEN
                        RETURN 0;
                    END IF;
                    IF p_user_id IS NOT NULL THEN
                        UPDATE users SET event_sequence = event_sequence + 1
                        WHERE app_id = p_app_id AND user_id = p_user_id
                        RETURNING event_sequence INTO v_sequence;
                    END IF;
                    INSERT INTO security_events (id, app_id, user_id, user_sequence, kind, at, data)
                    VALUES (v_id, p_app_id, p_user_id, v_sequence, p_kind, p_at, p_data)
                    RETURNING position INTO v_position;
                    INSERT INTO webhook_deliveries (endpoint_id, event_id, position, user_id, user_sequence, state,
                                                    next_attempt_at)
                    SELECT id, v_id, v_position, p_user_id, v_sequence, 'pending', p_at * 1000 FROM webhook_endpoints
                    WHERE app_id = p_app_id AND paused_at IS NULL AND p_kind = ANY (string_to_array(events, ' '));
                    GET DIAGNOSTICS v_queued = ROW_COUNT;
                    RETURN v_queued;
                END
                $$
                """,
                """
                CREATE FUNCTION vouch_create_session_v3(
                    p_server_nonce_hash bytea, p_server_nonce_expires_at bigint,
                    p_registration_app_id uuid, p_registration_nonce text, p_registration_nonce_expires_at bigint,
                    p_app_id uuid, p_user_id text,
                    p_display_name text, p_first_name text, p_last_name text, p_avatar_url text,
                    p_token_hash bytea, p_created_at bigint, p_expires_at bigint,
                    p_key_id uuid, p_key_mark_resolution bigint,
                    p_session_id uuid, p_provider_id uuid,
                    p_device_name text, p_device_platform text, p_device_app_version text
                ) RETURNS users
                LANGUAGE plpgsql
                AS $$
                DECLARE
                    account users;
                BEGIN
                    account := vouch_create_session_v2(
                        p_server_nonce_hash, p_server_nonce_expires_at, p_registration_app_id, p_registration_nonce,
                        p_registration_nonce_expires_at, p_app_id, p_user_id, p_display_name, p_first_name,
                        p_last_name, p_avatar_url, p_token_hash, p_created_at, p_expires_at, p_key_id,
                        p_key_mark_resolution, p_session_id, p_provider_id, p_device_name, p_device_platform,
                        p_device_app_version);
                    IF EXISTS (
                        SELECT 1 FROM webhook_endpoints
                        WHERE app_id = p_app_id AND paused_at IS NULL
                          AND 'session.created' = ANY (string_to_array(events, ' '))
                    ) THEN
                        PERFORM vouch_record_event(
                            p_app_id, p_user_id, 'session.created', p_created_at,
                            jsonb_strip_nulls(jsonb_build_object(
                                'session_id', p_session_id, 'provider_id', p_provider_id, 'key_id', p_key_id,
                                'device', NULLIF(jsonb_strip_nulls(jsonb_build_object(
                                    'name', p_device_name, 'platform', p_device_platform,
                                    'app_version', p_device_app_version)), '{}'::jsonb)))::text);
                    END IF;
                    RETURN account;
                END
                $$
                """,
            ]),
        // The outbox as a stream (`GET /events`, SQLite's step 11). Positions are drawn before
        // commit, so each event keeps its transaction's id and readers go in (xid, position) order
        // over transactions older than every one still running (`SecurityEventCursor`). Every
        // kind but `session.created` is written whoever listens (`vouch_record_event` replaced).
        // Indexes: a stream's reads, a user's export, and where a stream that starts at a time
        // begins.
        PostgresMigration(
            version: 9,
            statements: [
                "ALTER TABLE security_events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id()",
                "CREATE INDEX security_events_by_app_xid ON security_events (app_id, xid, position)",
                "CREATE INDEX security_events_by_user ON security_events (app_id, user_id, position) WHERE user_id IS NOT NULL",
                "CREATE INDEX security_events_by_app_time ON security_events (app_id, at)",
                // How far expiries have been told (`Store.recordSessionExpiries`): one row.
                "CREATE TABLE session_expiry_events (id integer PRIMARY KEY CHECK (id = 1), through bigint NOT NULL)",
                """
                CREATE OR REPLACE FUNCTION vouch_record_event(
                    p_app_id uuid, p_user_id text, p_kind text, p_at bigint, p_data text
                ) RETURNS integer
                LANGUAGE plpgsql
                AS $$
                DECLARE
                    v_sequence bigint;
                    v_id uuid := gen_random_uuid();
                    v_position bigint;
                    v_queued integer;
                BEGIN
                    IF p_kind = 'session.created' AND NOT EXISTS (
                        SELECT 1 FROM webhook_endpoints
                        WHERE app_id = p_app_id AND paused_at IS NULL AND p_kind = ANY (string_to_array(events, ' '))
                    ) THEN
                        RETURN 0;
                    END IF;
                    IF p_user_id IS NOT NULL THEN
                        UPDATE users SET event_sequence = event_sequence + 1
                        WHERE app_id = p_app_id AND user_id = p_user_id
                        RETURNING event_sequence INTO v_sequence;
                    END IF;
                    INSERT INTO security_events (id, app_id, user_id, user_sequence, kind, at, data)
                    VALUES (v_id, p_app_id, p_user_id, v_sequence, p_kind, p_at, p_data)
                    RETURNING position INTO v_position;
                    INSERT INTO webhook_deliveries (endpoint_id, event_id, position, user_id, user_sequence, state,
                                                    next_attempt_at)
                    SELECT id, v_id, v_position, p_user_id, v_sequence, 'pending', p_at * 1000 FROM webhook_endpoints
                    WHERE app_id = p_app_id AND paused_at IS NULL AND p_kind = ANY (string_to_array(events, ' '));
                    GET DIAGNOSTICS v_queued = ROW_COUNT;
                    RETURN v_queued;
                END
                $$
                """,
            ]),
        // Key sources (PROTOCOL §8.18): a provider's JWKS URL or OpenID issuer, the last good set
        // fetched from it (one row per provider, shared by every instance), the keys seen in it,
        // and hourly counts of the sign-ins each verified.
        PostgresMigration(
            version: 10,
            statements: [
                "ALTER TABLE providers ADD COLUMN jwks_uri text",
                "ALTER TABLE providers ADD COLUMN issuer text",
                "ALTER TABLE providers ADD COLUMN client_id text",
                "ALTER TABLE providers ADD COLUMN federated boolean NOT NULL DEFAULT false",
                "ALTER TABLE providers ADD COLUMN source_algorithm text",
                "CREATE UNIQUE INDEX providers_by_issuer ON providers (issuer) WHERE issuer IS NOT NULL",
                """
                CREATE TABLE provider_key_sets (
                    provider_id uuid PRIMARY KEY REFERENCES providers (id),
                    source text NOT NULL,
                    jwks_url text,
                    document text,
                    fetched_at bigint,
                    fresh_until bigint,
                    attempted_at bigint NOT NULL,
                    failing_since bigint,
                    last_error text
                )
                """,
                """
                CREATE TABLE provider_source_keys (
                    provider_id uuid NOT NULL REFERENCES providers (id),
                    kid text NOT NULL,
                    fingerprint text NOT NULL,
                    key_type text NOT NULL,
                    first_seen_at bigint NOT NULL,
                    last_seen_at bigint NOT NULL,
                    present boolean NOT NULL,
                    PRIMARY KEY (provider_id, kid, fingerprint)
                )
                """,
                """
                CREATE TABLE provider_source_key_uses (
                    provider_id uuid NOT NULL REFERENCES providers (id),
                    kid text NOT NULL,
                    hour bigint NOT NULL,
                    count bigint NOT NULL,
                    PRIMARY KEY (provider_id, kid, hour)
                )
                """,
            ]),
    ]

    /// Brings the database up to the newest version in one transaction that first takes a
    /// transaction-scoped advisory lock: instances starting at once queue on the lock, the first
    /// applies the steps, the others then find them recorded and apply nothing. DDL is
    /// transactional in PostgreSQL, so a failed step leaves no half-made schema.
    ///
    /// Refuses a database whose recorded version is newer than this build knows.
    ///
    /// - Returns: The version found and the version reached.
    static func apply(
        _ migrations: [PostgresMigration] = all, on db: PostgresRunner, now: Int64, lockTimeout: Duration
    ) async throws -> (from: Int, to: Int) {
        let versions = migrations.map(\.version)
        guard let latest = versions.last, versions.first.map({ $0 > 0 }) == true,
            zip(versions, versions.dropFirst()).allSatisfy({ $0 < $1 })
        else {
            throw StoreError.unavailable("migration versions must be positive and strictly increasing")
        }
        let seconds = max(1, lockTimeout.components.seconds)
        return try await db.transaction {
            // Waiting for another instance's migration may take longer than one statement.
            try await db.execute("SET LOCAL lock_timeout = '\(unescaped: String(seconds))s'")
            try await db.execute("SET LOCAL statement_timeout = '\(unescaped: String(seconds))s'")
            try await db.execute("SELECT pg_advisory_xact_lock(\(advisoryLockClass), hashtext(current_database()))")
            try await db.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version integer PRIMARY KEY,
                    applied_at bigint NOT NULL
                )
                """)
            let rows = try await db.rows("SELECT COALESCE(MAX(version), 0)::bigint AS version FROM schema_migrations")
            guard let row = rows.first else { throw StoreError.unavailable("schema_migrations: no row") }
            let current = Int(try PostgresRecordRow(row).int64("version"))
            guard current <= latest else {
                throw StoreError.unavailable("database schema version \(current) is newer than this build's \(latest)")
            }
            for migration in migrations where migration.version > current {
                for statement in migration.statements {
                    try await db.execute(PostgresQuery(unsafeSQL: statement))
                }
                try await db.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(migration.version), \(now))")
            }
            return (current, latest)
        }
    }
}
