import VouchStore

/// The statements of one operation, run on the store's connection.
///
/// Only handed out by `SQLiteWorker`, on its queue: every statement of an operation runs there in
/// one go, with no other operation in between and no hop back to the caller per statement.
struct SQLiteRunner {
    let handle: SQLiteConnectionHandle

    /// Runs one statement (SQLite prepares only the first statement of a string) and returns its rows.
    @discardableResult
    func rows(_ sql: String, _ binds: [SQLiteData] = []) throws -> [SQLiteRow] {
        try handle.rows(sql, binds)
    }

    /// Runs one statement that returns nothing of interest.
    func execute(_ sql: String, _ binds: [SQLiteData] = []) throws {
        try rows(sql, binds)
    }

    /// Runs `body` between BEGIN IMMEDIATE and COMMIT, rolling back if anything in it throws
    /// (COMMIT included). For work that must not share its commit: the migrations.
    ///
    /// IMMEDIATE takes the write lock at BEGIN rather than at the first write: another process
    /// holding it then makes BEGIN wait (busy timeout) instead of failing the transaction midway.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if handle.inTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs an INSERT, UPDATE or DELETE and returns how many rows it changed.
    func changes(_ sql: String, _ binds: [SQLiteData] = []) throws -> Int {
        try execute(sql, binds)
        return handle.changes
    }
}
