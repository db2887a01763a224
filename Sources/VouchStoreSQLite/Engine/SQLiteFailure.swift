/// What SQLite answered when a call failed: its extended result code and message. Messages name
/// tables and columns, never bound values, so they are safe to log.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    // SQLITE_CONSTRAINT (19) extended with its kind (sqlite3.h spells these as macros Swift
    // cannot import).
    private static let primaryKey: Int32 = 19 | (6 << 8)
    private static let unique: Int32 = 19 | (8 << 8)
    private static let rowID: Int32 = 19 | (10 << 8)
    private static let foreignKey: Int32 = 19 | (3 << 8)

    var isUniquenessViolation: Bool { code == Self.primaryKey || code == Self.unique || code == Self.rowID }
    var isForeignKeyViolation: Bool { code == Self.foreignKey }
    /// SQLITE_BUSY (5) in any of its extended forms: a lock another connection holds.
    var isBusy: Bool { code & 0xFF == 5 }

    var description: String { "sqlite error \(code): \(message)" }
}
