import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

@Suite("SQLite reads on the calling thread", .timeLimit(.minutes(1)))
struct SQLiteInlineReadersTests {
    @Test("a read runs on a pooled connection of its own and sees what was answered before it")
    func readsOnAPooledConnection() async throws {
        try await withInlineReadingStore { store in
            let inline = try #require(store.inlineReaders)
            #expect(inline.openedCount == 0, "opened on first need")
            let app = try await store.addApp()
            #expect(try await store.app(id: app.id) == app)
            #expect(inline.openedCount == 1)
            // Neither the writer's queue nor the queued reader was needed for it.
            #expect(store.readers.isOpen == false)
            // A read of several statements sees one snapshot on its one connection.
            let counts = try await store.read("counts") { db in
                (
                    try db.rows("SELECT count(*) AS n FROM apps").first?.int64("n"),
                    try db.rows("SELECT count(*) AS n FROM apps").first?.int64("n")
                )
            }
            #expect(counts.0 == 1 && counts.1 == 1)
            #expect(inline.openedCount == 1, "one at a time needs one connection")
        }
    }

    @Test("a read the pool hands back goes to the queued read connection")
    func handedBackReadsGoToTheQueue() async throws {
        try await withInlineReadingStore { store in
            let app = try await store.addApp()
            // A closed pool hands every read back, as a busy database or a full pool does.
            try #require(store.inlineReaders).close()
            #expect(store.readers.isOpen == false)
            #expect(try await store.app(id: app.id) == app)
            #expect(store.readers.isOpen, "the queued reader answered")
        }
    }

    @Test("a read that finds the database locked is handed back at once, not waited for")
    func busyDatabaseIsHandedBack() async throws {
        try await withTemporaryDirectory { directory in
            // A rollback-journal database, where a writer's exclusive lock keeps readers out (in WAL
            // mode that takes a recovery or a WAL restart, which a test cannot bring about at will).
            let path = directory.file("locked.sqlite")
            let other = try SQLiteConnectionHandle(path: path)
            defer { other.close() }
            _ = try other.rows("CREATE TABLE t (x INTEGER) STRICT", [])
            _ = try other.rows("INSERT INTO t (x) VALUES (1)", [])
            let pool = SQLiteInlineReaders(path: path, limit: 1, logger: .init(label: "test"))
            defer { pool.close() }
            let count: (SQLiteRunner) throws -> Int64 = { db in try db.rows("SELECT count(*) AS n FROM t").first?.int64("n") ?? -1 }
            #expect(try pool.run(count) == 1)

            _ = try other.rows("BEGIN EXCLUSIVE", [])
            #expect(try pool.run(count) == nil, "SQLITE_BUSY: handed back")
            #expect(pool.busyCount == 1)
            _ = try other.rows("COMMIT", [])
            #expect(try pool.run(count) == 1, "the connection was given back and works")
            #expect(pool.openedCount == 1)
        }
    }

    @Test("no free connection or a closed pool: the read is handed back; at most `limit` are opened")
    func poolLimit() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await withSQLiteStore(at: path) { store in _ = try await store.addApp() }
            let pool = SQLiteInlineReaders(path: path, limit: 1, logger: .init(label: "test"))
            let count: (SQLiteRunner) throws -> Int64 = { db in try db.rows("SELECT count(*) AS n FROM apps").first?.int64("n") ?? -1 }
            var inner: Int64? = 0
            let outer = try pool.run { db -> Int64 in
                // The one connection is in use by this very read.
                inner = try pool.run(count)
                return try count(db)
            }
            #expect(outer == 1)
            #expect(inner == nil)
            #expect(pool.openedCount == 1)
            #expect(try pool.run(count) == 1, "given back, used again")
            #expect(pool.openedCount == 1)
            pool.close()
            #expect(pool.openedCount == 0)
            #expect(try pool.run(count) == nil, "closed: handed back")
        }
    }
}
