import Foundation
import Logging
import VouchServer
import VouchStoreSQLite

/// A real SQLite store in a directory of its own, set up as `vouch serve` sets up its own (the
/// heap setting it applies at start, the store's defaults), for the in-process measurements;
/// closed and removed afterwards.
enum ScratchStore {
    static func with<Value>(logger: Logger, _ body: (SQLiteStore) async throws -> Value) async throws -> Value {
        // Without it, glibc's trimming of the writer's heap would be measured here and not there.
        HeapTrimming.apply()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(path: directory.appendingPathComponent("vouch.sqlite").path, logger: logger)
        do {
            let value = try await body(store)
            try await store.close()
            return value
        } catch {
            try? await store.close()
            throw error
        }
    }
}
