import Foundation


extension SQLiteStore {
    public func createApp(_ app: AppRecord) async throws {
        try await exclusive("createApp") { db in
            try db.execute(
                "INSERT INTO apps (id, name, session_ttl_seconds, created_at) VALUES (?, ?, ?, ?)",
                [.uuid(app.id), .text(app.name), .int64(app.sessionTTLSeconds), .int64(app.createdAt)])
        }
    }

    public func app(id: UUID) async throws -> AppRecord? {
        try await exclusive("app") { db in
            try db.rows("SELECT * FROM apps WHERE id = ?", [.uuid(id)]).first.map(AppRecord.init(row:))
        }
    }

    /// Ties on `created_at` (same second) keep insertion order, so the listing is stable.
    public func apps() async throws -> [AppRecord] {
        try await exclusive("apps") { db in
            try db.rows("SELECT * FROM apps ORDER BY created_at, rowid").map(AppRecord.init(row:))
        }
    }

    /// `createdAt` is kept as stored: an app's age does not change when it is renamed.
    public func updateApp(_ app: AppRecord) async throws {
        let changed = try await exclusive("updateApp") { db in
            try db.changes(
                "UPDATE apps SET name = ?, session_ttl_seconds = ? WHERE id = ?",
                [.text(app.name), .int64(app.sessionTTLSeconds), .uuid(app.id)])
        }
        guard changed > 0 else { throw StoreError.notFound }
    }
}

extension AppRecord {
    init(row: SQLiteRow) throws {
        self.init(
            id: try row.uuid("id"),
            name: try row.text("name"),
            sessionTTLSeconds: try row.int64("session_ttl_seconds"),
            createdAt: try row.int64("created_at"))
    }
}
