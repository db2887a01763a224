import Logging

/// One read-only operation in one deferred transaction, so that its statements see one snapshot;
/// a read that starts after a write was answered sees that write.
enum ReadTransaction {
    static func run<T>(on handle: SQLiteConnectionHandle, logger: Logger, _ body: (SQLiteRunner) throws -> T) throws -> T {
        let db = SQLiteRunner(handle: handle)
        try db.execute("BEGIN DEFERRED")
        let value: T
        do {
            value = try body(db)
        } catch {
            end(db, logger: logger)
            throw error
        }
        do {
            try db.execute("COMMIT")
        } catch {
            end(db, logger: logger)
            throw error
        }
        return value
    }

    private static func end(_ db: SQLiteRunner, logger: Logger) {
        guard db.handle.inTransaction else { return }
        do {
            try db.execute("ROLLBACK")
        } catch {
            logger.debug("read rollback failed", metadata: ["error": "\(error)"])
        }
    }
}
