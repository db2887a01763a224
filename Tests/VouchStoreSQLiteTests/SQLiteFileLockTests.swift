import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport
@testable import VouchStoreSQLite

/// One store per file: a second would keep a session cache that the first one's writes never reach.
@Suite("SQLite file lock", .timeLimit(.minutes(1)))
struct SQLiteFileLockTests {
    @Test("a second store on the same file is refused with a reason; once the first closed, it opens")
    func secondStoreRefused() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let first = try await SQLiteStore.open(path: path)
            let app: AppRecord
            do {
                app = try await first.addApp()
                await #expect {
                    let second = try await SQLiteStore.open(path: path)
                    try await second.close()
                } throws: { error in
                    guard let failure = error as? StoreError, failure.kind == .unavailable, let reason = failure.detail else { return false }
                    return reason.contains("in use by another vouch serve") && reason.contains(path)
                }
                // The refused open changed nothing for the first.
                #expect(try await first.app(id: app.id) == app)
                try await first.close()
            } catch {
                try? await first.close()
                throw error
            }
            let apps = try await withSQLiteStore(at: path) { store in try await store.apps() }
            #expect(apps == [app])
            #expect(FileManager.default.fileExists(atPath: SQLiteFileLock.lockPath(forDatabase: path)))
        }
    }

    @Test("a directory where the lock file cannot be made is a clear error, not a crash")
    func unwritableDirectory() async throws {
        await #expect {
            let store = try await SQLiteStore.open(path: "/nonexistent-vouch-directory/vouch.sqlite")
            try await store.close()
        } throws: { error in
            guard let failure = error as? StoreError, failure.kind == .unavailable, let reason = failure.detail else { return false }
            return reason.contains("could not open the lock file")
        }
    }
}
