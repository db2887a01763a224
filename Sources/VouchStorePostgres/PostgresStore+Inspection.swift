import PostgresNIO

/// Read-outs of the database's own state, for tests and diagnostics: what the `Store` protocol
/// deliberately does not show.
extension PostgresStore {
    /// The rows of `schema_migrations`, oldest first.
    func appliedMigrations() async throws -> [(version: Int, appliedAt: Int64)] {
        try await single("appliedMigrations") { db in
            try await db.rows("SELECT version::bigint AS version, applied_at FROM schema_migrations ORDER BY version").map {
                let row = PostgresRecordRow($0)
                return (Int(try row.int64("version")), try row.int64("applied_at"))
            }
        }
    }

    /// The server's setting `name` as this store's connections see it (e.g. `statement_timeout`).
    func setting(_ name: String) async throws -> String? {
        try await single("setting") { db in
            try await db.rows("SELECT current_setting(\(name)) AS value").first.map { try PostgresRecordRow($0).text("value") }
        }
    }
}
