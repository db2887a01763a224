import VaporCSQLite
import VouchStore
import VouchSupport

/// An SQLite connection and its prepared statements, used by one thread at a time: the
/// `SQLiteWorker`'s queue is the only caller, which is what makes the unsynchronised state safe.
///
/// Statements are prepared once (`SQLITE_PREPARE_PERSISTENT`) and reused: the sign-in path runs the
/// same dozen statements for ever, and parsing them again would be a measurable part of its cost.
///
/// Its state is `@exclusivity(unchecked)`: Swift's dynamic check on a class's stored property
/// (a look-up in a thread-local set of the accesses in progress) only ever catches two
/// overlapping accesses on one thread, which no method here can make (none calls out while it
/// reads or writes one), and it would run on every statement of every sign-in.
final class SQLiteConnectionHandle {
    @exclusivity(unchecked) private var database: OpaquePointer?
    @exclusivity(unchecked) private var statements: [StatementKey: OpaquePointer] = [:]
    /// Each cached statement's column names, looked up when it returns its first row: a statement
    /// that returns none (the sign-in's inserts, BEGIN and COMMIT) takes no reference to them, and
    /// the committer that runs it is a different pool thread from one group to the next.
    @exclusivity(unchecked) private var columnNames: [OpaquePointer: SQLiteColumnNames] = [:]
    /// Dynamic SQL (a PRAGMA with a value, a test's raw statement) must not grow the cache for ever.
    private static let maximumCachedStatements = 256

    /// `gathersWALWrites`: the connection's WAL writes go through `SQLiteGatheringVFS` (the
    /// writer's; a connection that only reads or checkpoints writes no frames).
    init(path: String, gathersWALWrites: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let vfs = gathersWALWrites ? SQLiteGatheringVFS.registeredName : nil
        let result = sqlite_nio_sqlite3_open_v2(path, &handle, flags, vfs)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite_nio_sqlite3_close(handle)
            throw SQLiteFailure(code: result, message: message)
        }
        sqlite_nio_sqlite3_extended_result_codes(handle, 1)
        database = handle
    }

    /// A connection that only reads (`query_only`), waiting at most `busyTimeoutMilliseconds` for
    /// a lock; closed again if setting it up fails.
    static func forReading(path: String, busyTimeoutMilliseconds: Int) throws -> SQLiteConnectionHandle {
        let handle = try SQLiteConnectionHandle(path: path)
        do {
            _ = try handle.rows("PRAGMA query_only = ON", [])
            _ = try handle.rows("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)", [])
        } catch {
            handle.close()
            throw error
        }
        return handle
    }

    var isClosed: Bool { database == nil }

    /// Whether a transaction is open (SQLite leaves autocommit mode at BEGIN, and returns to it at
    /// COMMIT, at ROLLBACK, or when an error rolled the transaction back by itself).
    var inTransaction: Bool {
        guard let database else { return false }
        return sqlite_nio_sqlite3_get_autocommit(database) == 0
    }

    /// Runs one statement (only the first statement of `sql`) and returns its rows.
    func rows(_ sql: String, _ binds: [SQLiteData]) throws -> [SQLiteRow] {
        guard let database else { throw StoreError.unavailable("the store is closed") }
        let statement = try prepared(sql, database)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (offset, value) in binds.enumerated() {
            try check(bind(value, at: Int32(offset + 1), of: statement), database)
        }
        var rows: [SQLiteRow] = []
        var names: SQLiteColumnNames?
        while true {
            let step = sqlite_nio_sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw failure(database) }
            let rowNames = names ?? columnNames(of: statement)
            names = rowNames
            rows.append(SQLiteRow(names: rowNames, values: (0..<sqlite_nio_sqlite3_column_count(statement)).map { column(statement, $0) }))
        }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int {
        guard let database else { return 0 }
        return Int(sqlite_nio_sqlite3_changes(database))
    }

    /// Rows changed by every INSERT, UPDATE or DELETE that completed on this connection: an
    /// operation that failed without moving it wrote nothing (a failed statement undoes itself).
    var totalChanges: Int64 {
        guard let database else { return 0 }
        return sqlite_nio_sqlite3_total_changes64(database)
    }

    /// How many times SQLite prepared one of the cached statements again (a schema change, or a
    /// plan that depended on a bound value and is redone at every new binding). The cache saves
    /// parsing only while this stops growing; a test holds the store's hot reads to that.
    var reprepareCount: Int { repreparedStatements.values.reduce(0, +) }

    /// How many times each cached statement has run (SQLite's own count): tests use it to tell an
    /// answer read from the file from one that came from memory.
    var statementRuns: [String: Int] {
        var counts: [String: Int] = [:]
        for statement in statements.values {
            counts[Self.sql(of: statement)] = Int(sqlite_nio_sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_RUN, 0))
        }
        return counts
    }

    /// The SQL of each cached statement that was prepared again, and how many times.
    var repreparedStatements: [String: Int] {
        var counts: [String: Int] = [:]
        for statement in statements.values {
            let count = Int(sqlite_nio_sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0))
            if count > 0 { counts[Self.sql(of: statement)] = count }
        }
        return counts
    }

    /// The SQL of every cached statement: what a reuse test must have run before it can say that
    /// none of it was prepared again.
    var cachedStatements: [String] {
        statements.values.map { Self.sql(of: $0) }
    }

    private static func sql(of statement: OpaquePointer) -> String {
        String(cString: sqlite_nio_sqlite3_sql(statement))
    }

    func close() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements.removeAll()
        columnNames.removeAll()
        if let database { sqlite_nio_sqlite3_close_v2(database) }
        database = nil
    }

    deinit { close() }

    private func prepared(_ sql: String, _ database: OpaquePointer) throws -> OpaquePointer {
        if let cached = statements[StatementKey(sql)] { return cached }
        if statements.count >= Self.maximumCachedStatements {
            for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
            statements.removeAll()
            columnNames.removeAll()
        }
        var statement: OpaquePointer?
        let result = sqlite_nio_sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(database) }
        statements[StatementKey(sql)] = statement
        columnNames[statement] = Self.names(of: statement)
        return statement
    }

    /// A cached statement's column names (read from SQLite should the cache not hold them).
    private func columnNames(of statement: OpaquePointer) -> SQLiteColumnNames {
        columnNames[statement] ?? Self.names(of: statement)
    }

    private static func names(of statement: OpaquePointer) -> SQLiteColumnNames {
        SQLiteColumnNames(
            (0..<sqlite_nio_sqlite3_column_count(statement)).map {
                String(cString: sqlite_nio_sqlite3_column_name(statement, $0))
            })
    }

    private func bind(_ value: SQLiteData, at index: Int32, of statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let integer): return sqlite_nio_sqlite3_bind_int64(statement, index, integer)
        case .float(let double): return sqlite_nio_sqlite3_bind_double(statement, index, double)
        case .text(let text):
            // The string's own UTF-8 where it lies (SQLite copies it): passing the `String` itself
            // would make a NUL-terminated copy of it first, an allocation a bound text.
            if let bound = text.utf8.withContiguousStorageIfAvailable({ bindText($0, at: index, of: statement) }) {
                return bound
            }
            var native = text
            return native.withUTF8 { bindText($0, at: index, of: statement) }
        case .uuidText(let id):
            return id.withLowercasedUTF8 { bindText($0, at: index, of: statement) }
        case .blob(let bytes):
            guard !bytes.isEmpty else { return sqlite_nio_sqlite3_bind_zeroblob(statement, index, 0) }
            return bytes.withUnsafeBytes {
                sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), Self.transient)
            }
        case .null: return sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }

    private func bindText(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int32, of statement: OpaquePointer) -> Int32 {
        guard let base = utf8.baseAddress else {
            return sqlite_nio_sqlite3_bind_text64(statement, index, "", 0, Self.transient, UInt8(SQLITE_UTF8))
        }
        return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            sqlite_nio_sqlite3_bind_text64(statement, index, $0, UInt64(utf8.count), Self.transient, UInt8(SQLITE_UTF8))
        }
    }

    private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite_nio_sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
            guard let pointer = sqlite_nio_sqlite3_column_text(statement, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
            guard count > 0, let pointer = sqlite_nio_sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }

    private func check(_ result: Int32, _ database: OpaquePointer) throws {
        guard result == SQLITE_OK else { throw failure(database) }
    }

    private func failure(_ database: OpaquePointer) -> SQLiteFailure {
        SQLiteFailure(
            code: sqlite_nio_sqlite3_extended_errcode(database),
            message: String(cString: sqlite_nio_sqlite3_errmsg(database)))
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns. Computed, not a
    /// `static let`: a stored one is reached through its lazy initialiser's check at every bind.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }
}

/// A statement's SQL as the key of the prepared-statement cache: hashed by its length and its
/// first and last eight bytes rather than all of it (the store's statements are literals of up to
/// a few hundred bytes, and the cache is asked on every execution); equal only when the whole
/// text is, which for the same literal is one pointer comparison.
struct StatementKey: Hashable {
    let sql: String

    init(_ sql: String) { self.sql = sql }

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        let ends = utf8.withContiguousStorageIfAvailable { bytes -> (UInt64, UInt64) in
            let raw = UnsafeRawBufferPointer(bytes)
            guard raw.count >= 8 else {
                var small: UInt64 = 0
                for (index, byte) in raw.enumerated() { small |= UInt64(byte) << (8 * UInt64(index)) }
                return (small, 0)
            }
            return (raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: raw.count - 8, as: UInt64.self))
        }
        if let (head, tail) = ends {
            hasher.combine(head)
            hasher.combine(tail)
        } else {
            hasher.combine(sql)
        }
    }

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool { lhs.sql == rhs.sql }
}
