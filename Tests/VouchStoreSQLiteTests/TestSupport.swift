import Foundation
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// Opens the store at `path`, runs `body`, and closes the store on every path: an SQLite
/// connection dropped unclosed trips an assertion that would take the whole test process down.
func withSQLiteStore<T>(at path: String, _ body: (SQLiteStore) async throws -> T) async throws -> T {
    try await closing(try await SQLiteStore.open(path: path), body)
}
