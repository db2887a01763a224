import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    public func createApp(_ app: AppRecord) async throws {
        try await single("createApp") { db in
            try await db.execute(
                """
                INSERT INTO apps (id, name, session_ttl_seconds, created_at, challenge_margin_seconds, access_token_ttl_seconds,
                                  audiences)
                VALUES (\(app.id), \(app.name), \(app.sessionTTLSeconds), \(app.createdAt), \(app.challengeMarginSeconds),
                        \(app.accessTokenTTLSeconds), \(WordListColumn.text(app.audiences)))
                """)
        }
    }

    public func app(id: UUID) async throws -> AppRecord? {
        try await single("app") { db in
            try await db.rows("SELECT * FROM apps WHERE id = \(id)").first.map(AppRecord.init(postgres:))
        }
    }

    /// Ties on `created_at` (same second) keep insertion order (`seq`), so the listing is stable.
    public func apps() async throws -> [AppRecord] {
        try await single("apps") { db in
            try await db.rows("SELECT * FROM apps ORDER BY created_at, seq").map(AppRecord.init(postgres:))
        }
    }

    /// One UPDATE: under READ COMMITTED it re-reads the row it waits for, so a field left `nil`
    /// keeps the value a concurrent update just committed, and neither update is lost. A margin
    /// outside `AppRecord.challengeMarginRange`, or an access-token lifetime outside
    /// `AppRecord.accessTokenTTLRange`, is refused by the column's CHECK, and the whole update with
    /// it. New audiences replace the list (`[]` empties it): `nil` binds NULL, which keeps it.
    public func updateApp(id: UUID, changes: AppChanges) async throws -> AppRecord {
        let audiences = changes.audiences.map(WordListColumn.text)
        let updated = try await single("updateApp") { db in
            try await db.rows(
                """
                UPDATE apps SET name = COALESCE(\(changes.name)::text, name),
                    session_ttl_seconds = COALESCE(\(changes.sessionTTLSeconds)::bigint, session_ttl_seconds),
                    challenge_margin_seconds = COALESCE(\(changes.challengeMarginSeconds)::bigint, challenge_margin_seconds),
                    access_token_ttl_seconds = COALESCE(\(changes.accessTokenTTLSeconds)::bigint, access_token_ttl_seconds),
                    audiences = COALESCE(\(audiences)::text, audiences)
                WHERE id = \(id) RETURNING *
                """
            ).first.map(AppRecord.init(postgres:))
        }
        guard let updated else { throw StoreError.notFound }
        return updated
    }
}
