import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchTestSupport

@testable import VouchStoreSQLite

/// The database holds Vouch's private signing keys and the registration secrets: its file and the
/// WAL's companions are the owner's alone, whatever the umask and whatever mode an existing file had.
@Suite("SQLite file permissions", .timeLimit(.minutes(1)))
struct FilePermissionsTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    static func files(_ path: String) -> [String] {
        [path] + SQLiteFilePermissions.companions(ofDatabase: path)
    }

    @Test("a new database file and its companions are made mode 0600")
    func freshFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            try await withSQLiteStore(at: path) { store in
                #expect(try Self.mode(path) == 0o600)
                _ = try await store.addApp()
                for file in Self.files(path) {
                    #expect(FileManager.default.fileExists(atPath: file), "\(file)")
                    #expect(try Self.mode(file) == 0o600, "\(file)")
                }
            }
        }
    }

    @Test("an existing database and its companions, left mode 0644, are set to 0600 when opened")
    func existingFiles() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            try await withSQLiteStore(at: path) { try await $0.createApp(app) }
            // Another connection keeps the WAL and its index in place (the file is in WAL mode
            // for good), as a server that made them under a looser mode would have left them.
            let outsider = try SQLiteConnectionHandle(path: path)
            defer { outsider.close() }
            _ = try outsider.rows("INSERT INTO server_secrets (name, value) VALUES ('outsider', x'00')", [])
            for file in Self.files(path) {
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
                #expect(try Self.mode(file) == 0o644, "\(file)")
            }
            try await withSQLiteStore(at: path) { store async throws in
                for file in Self.files(path) {
                    #expect(try Self.mode(file) == 0o600, "\(file)")
                }
                #expect(try await store.app(id: app.id) == app)
            }
        }
    }

    @Test("a database whose files cannot be made private is not opened")
    func unchangeableMode() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            // A WAL that cannot be reached (a link through a regular file): its mode cannot be set.
            #expect(FileManager.default.createFile(atPath: directory.file("plain"), contents: nil))
            try FileManager.default.createSymbolicLink(atPath: path + "-wal", withDestinationPath: directory.file("plain") + "/wal")
            await #expect {
                let store = try await SQLiteStore.open(path: path)
                try await store.close()
            } throws: { error in
                guard let failure = error as? StoreError, failure.kind == .unavailable, let reason = failure.detail else { return false }
                return reason.contains("could not set mode 0600") && reason.contains(path + "-wal")
            }
            // The refused open let the lock go: once the WAL is gone, the store opens.
            try FileManager.default.removeItem(atPath: path + "-wal")
            try await withSQLiteStore(at: path) { store async throws in #expect(try await store.apps() == []) }
        }
    }
}
