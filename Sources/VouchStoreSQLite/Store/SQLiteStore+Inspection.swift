import VouchStore

/// Read-outs of the file's own state, for tests and diagnostics: what the `Store` protocol
/// deliberately does not show (pragmas, schema history).
extension SQLiteStore {
    /// The value of a pragma such as `journal_mode`, as text.
    func pragma(_ name: String) async throws -> String? {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) else {
            throw StoreError.unavailable("not a pragma name")
        }
        return try await exclusive("pragma", invalidating: .none) { db in
            switch try db.rows("PRAGMA \(name)").first?.values.first {
            case .text(let text): text
            case .integer(let integer): String(integer)
            default: nil
            }
        }
    }

    /// The rows of `schema_migrations`, oldest first.
    func appliedMigrations() async throws -> [(version: Int, appliedAt: Int64)] {
        try await exclusive("appliedMigrations", invalidating: .none) { db in
            try db.rows("SELECT version, applied_at FROM schema_migrations ORDER BY version").map {
                (Int(try $0.int64("version")), try $0.int64("applied_at"))
            }
        }
    }

    /// Runs one statement as is; for tests that need a state the API cannot produce (a corrupt row).
    func execute(rawSQL sql: String) async throws {
        try await exclusive("execute") { db in try db.execute(sql) }
    }
}
