import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// The writer's WAL goes through `SQLiteGatheringVFS`: what SQLite writes between two syncs
/// reaches the file in a few calls. These tests hold that it does gather, and that nothing it
/// gathers is ever missing where SQLite, another connection or a reopened file looks for it.
@Suite("Gathered WAL writes", .timeLimit(.minutes(1)))
struct GatheringVFSTests {
    @Test("a group's WAL frames reach the file in a few writes, and another connection reads every row")
    func gathersAndKeepsEverything() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            try await withSQLiteStore(at: path) { store in
                try await store.createApp(app)
                try await signIns(200, into: store, app: app.id, prefix: "user")
            }
            // Added up when the WAL file closes (with the store), for this file alone.
            let totals = SQLiteGatheringVFS.totals(ofWAL: path + "-wal")
            let asked = totals.writesAsked, made = totals.writesMade
            #expect(asked >= 2 * 200 / SQLiteWorker.maximumGroupSize, "SQLite wrote frames: \(asked)")
            #expect(made * 3 <= asked, "SQLite asked \(asked) writes, the file was given \(made)")

            #expect(try rowCount("sessions", in: path) == 200)
            #expect(try integrity(of: path) == "ok")
        }
    }

    @Test("each commit is visible to another connection at once, across checkpoints and the log's restart")
    func visibleAcrossCheckpoints() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            try await withSQLiteStore(at: path) { store in
                try await store.createApp(app)
                let checkpointer = try #require(store.checkpointer)
                for round in 1...4 {
                    try await signIns(50, into: store, app: app.id, prefix: "round-\(round)")
                    // Read while the store is open: the frames must be in the file, not only in
                    // the writer's buffer, once the sign-ins were answered.
                    #expect(try rowCount("sessions", in: path) == 50 * round)
                    // Copied back: the writer starts the log again from its beginning next time.
                    let copied = try #require(await checkpointer.checkpointNow())
                    #expect(copied.checkpointedPages == copied.logPages, "round \(round): \(copied)")
                }
            }
            #expect(try rowCount("sessions", in: path) == 200)
            #expect(try integrity(of: path) == "ok")
        }
    }

    @Test("a transaction larger than the buffer is written in pieces, every byte where it belongs")
    func largeTransaction() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            // 600 rows of 4 KiB: some 2.4 MB of frames, past the 1 MiB a buffer holds and in
            // writes of 120 KiB at most; SQLite may spill pages before the commit, too.
            let rows = (0..<600).map { _ in randomBytes(4096) }
            try await withSQLiteStore(at: path) { store in
                try await store.worker.run { db in
                    try db.execute("CREATE TABLE scratch (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
                    try db.transaction {
                        for (index, data) in rows.enumerated() {
                            try db.execute("INSERT INTO scratch (id, data) VALUES (?, ?)", [.integer(Int64(index)), .blob(data)])
                        }
                    }
                }
                for index in [0, 1, 255, 256, 599] {
                    let read = try withOutsideConnection(to: path) { outsider in
                        try outsider.rows("SELECT data FROM scratch WHERE id = ?", [.integer(Int64(index))]).first?.bytes("data")
                    }
                    #expect(read == rows[index], "row \(index)")
                }
            }
            #expect(try rowCount("scratch", in: path) == 600)
            #expect(try integrity(of: path) == "ok")
        }
    }

    /// The rows of `table`, counted by a connection of its own (the platform's VFS).
    private func rowCount(_ table: String, in path: String) throws -> Int? {
        try withOutsideConnection(to: path) { try $0.rows("SELECT count(*) AS n FROM \(table)", []).first?.int64("n") }.map(Int.init)
    }

    private func integrity(of path: String) throws -> String? {
        try withOutsideConnection(to: path) { try $0.rows("PRAGMA integrity_check", []).first?.text("integrity_check") }
    }

    /// `count` sign-ins at once, each its own user and nonce.
    private func signIns(_ count: Int, into store: SQLiteStore, app: UUID, prefix: String) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { _ = try await store.createSession(newSession(app: app, user: "\(prefix)-\(index)")) }
            }
            try await group.waitForAll()
        }
    }
}
