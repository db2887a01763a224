import Foundation
@testable import VouchStore

/// Runs `body` with a fresh directory that is removed afterwards, whatever happens.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("vouch-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Opens the store at `path`, runs `body`, and closes the store on every path: an SQLite
/// connection dropped unclosed trips an assertion that would take the whole test process down.
func withSQLiteStore<T>(at path: String, _ body: (SQLiteStore) async throws -> T) async throws -> T {
    try await closing(try await SQLiteStore.open(path: path), body)
}

extension URL {
    func file(_ name: String) -> String { appendingPathComponent(name).path }
}
