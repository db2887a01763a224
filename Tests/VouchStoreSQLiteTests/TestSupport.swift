import Foundation
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
        try await closing(try await SQLiteStore.open(path: directory.file("vouch.sqlite"), readConnection: .inline), body)
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
