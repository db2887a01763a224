import Dispatch
import Foundation
import Logging
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// Opens the store at `path`, runs `body`, and closes the store on every path: an SQLite
/// connection dropped unclosed trips an assertion that would take the whole test process down.
func withSQLiteStore<T>(at path: String, _ body: (SQLiteStore) async throws -> T) async throws -> T {
    try await closing(try await SQLiteStore.open(path: path), body)
}

/// A store on a fresh file in a temporary directory, reading on the calling thread as
/// `vouch serve` does, closed after `body` like `withSQLiteStore`.
func withInlineReadingStore<T>(_ body: (SQLiteStore) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        try await closing(try await SQLiteStore.open(path: directory.file("vouch.sqlite"), configuration: .init(readConnection: .inline)), body)
    }
}

/// Runs `body` with a writable connection of its own to the file at `path`, beside any store: what
/// the file lock keeps other servers from being, for tests that show what the caches would miss.
func withOutsideConnection<T>(to path: String, _ body: (SQLiteConnectionHandle) throws -> T) throws -> T {
    let outsider = try SQLiteConnectionHandle(path: path)
    defer { outsider.close() }
    _ = try outsider.rows("PRAGMA busy_timeout = 5000", [])
    return try body(outsider)
}

/// Leaves at `path` a database as schema `version` left it, holding `app`, plus whatever `body`
/// writes with its own connection (closed on every path): what an upgrade test starts from.
func makeDatabase(
    at path: String, asVersion version: Int, app: AppRecord,
    _ body: (SQLiteRunner) throws -> Void
) throws {
    let handle = try SQLiteConnectionHandle(path: path)
    defer { handle.close() }
    let db = SQLiteRunner(handle: handle)
    _ = try SQLiteMigrations.apply(
        Array(SQLiteMigrations.all.prefix { $0.version <= version }), on: db, now: t0,
        logger: Logger(label: "test"))
    try db.execute(
        "INSERT INTO apps (id, name, session_ttl_seconds, created_at) VALUES (?, ?, ?, ?)",
        [.uuid(app.id), .text(app.name), .int64(app.sessionTTLSeconds), .int64(app.createdAt)])
    try body(db)
}

/// The writer's queue held by a block that waits on `gate`; returns once that block runs, so
/// that whatever is queued next waits behind it however busy the machine is (writes queued
/// meanwhile are then committed as one group, in the order they arrived).
func holdQueue(_ worker: SQLiteWorker, until gate: DispatchSemaphore) async throws -> Task<Void, any Error> {
    let running = DispatchSemaphore(value: 0)
    let held = Task {
        try await worker.run { _ in
            running.signal()
            gate.wait()
        }
    }
    while running.wait(timeout: .now()) != .success {
        try await Task.sleep(for: .milliseconds(5))
    }
    return held
}

/// Waits until `count` writes are in the writer's list.
func waitUntilWaiting(_ worker: SQLiteWorker, _ count: Int) async throws {
    while worker.waitingOperations < count {
        try await Task.sleep(for: .milliseconds(5))
    }
}
