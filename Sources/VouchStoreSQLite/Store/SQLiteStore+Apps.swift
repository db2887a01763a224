import Foundation
import VouchStore

extension SQLiteStore {
    public func createApp(_ app: AppRecord) async throws {
        try await exclusive("createApp") { db in
            try db.execute(
                """
                INSERT INTO apps (id, name, session_ttl_seconds, created_at, challenge_margin_seconds, access_token_ttl_seconds,
                                  audiences)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .uuid(app.id), .text(app.name), .int64(app.sessionTTLSeconds), .int64(app.createdAt),
                    .int64(app.challengeMarginSeconds), .int64(app.accessTokenTTLSeconds), .text(WordListColumn.text(app.audiences)),
                ])
        }
    }

    /// From the catalogue cache when it holds the app (every app write invalidates it).
    public func app(id: UUID) async throws -> AppRecord? {
        let (kept, ticket) = catalogueCache.app(id: id)
        if let kept { return kept }
        let read = try await read("app") { db in
            try db.rows("SELECT * FROM apps WHERE id = ?", [.uuid(id)]).first.map(AppRecord.init(row:))
        }
        if let read { catalogueCache.keep(app: read, since: ticket) }
        return read
    }

    /// Ties on `created_at` (same second) keep insertion order, so the listing is stable.
    public func apps() async throws -> [AppRecord] {
        try await read("apps") { db in
            try db.rows("SELECT * FROM apps ORDER BY created_at, rowid").map(AppRecord.init(row:))
        }
    }

    /// One statement: a field left `nil` keeps the value the row has when the statement runs, not
    /// a value read earlier, so a concurrent update of the other field is never overwritten.
    /// A margin outside `AppRecord.challengeMarginRange`, or an access-token lifetime outside
    /// `AppRecord.accessTokenTTLRange`, is refused by the column's CHECK, and the whole update
    /// with it. New audiences replace the list (`[]` empties it): `nil` binds NULL, which keeps it.
    public func updateApp(id: UUID, changes: AppChanges) async throws -> AppRecord {
        let updated = try await exclusive("updateApp") { db in
            try db.rows(
                """
                UPDATE apps SET name = COALESCE(?, name), session_ttl_seconds = COALESCE(?, session_ttl_seconds),
                    challenge_margin_seconds = COALESCE(?, challenge_margin_seconds),
                    access_token_ttl_seconds = COALESCE(?, access_token_ttl_seconds), audiences = COALESCE(?, audiences)
                WHERE id = ? RETURNING *
                """,
                [
                    .optionalText(changes.name), .optionalInt64(changes.sessionTTLSeconds),
                    .optionalInt64(changes.challengeMarginSeconds), .optionalInt64(changes.accessTokenTTLSeconds),
                    .optionalText(changes.audiences.map(WordListColumn.text)), .uuid(id),
                ]
            ).first.map(AppRecord.init(row:))
        }
        guard let updated else { throw StoreError.notFound }
        return updated
    }
}
