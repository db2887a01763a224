import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchStoreConformance
import VouchTestSupport

@testable import VouchStoreSQLite

@Suite("schema version 8: access-token settings, signing keys and service credentials on a version 7 database")
struct AccessTokenMigrationTests {
    @Test("apps keep their rows and get the default lifetime and no audiences; the new tables start empty and work")
    func upgradeFromVersion7() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.file("vouch.sqlite")
            let app = makeApp()
            try makeDatabase(at: path, asVersion: 7, app: app) { db in
                try db.execute("UPDATE apps SET challenge_margin_seconds = 45 WHERE id = ?", [.uuid(app.id)])
            }
            try await withSQLiteStore(at: path) { store async throws in
                var expected = app
                expected.challengeMarginSeconds = 45
                #expect(try await store.app(id: app.id) == expected, "the defaults")
                #expect(expected.accessTokenTTLSeconds == 300 && expected.audiences == [])
                #expect(try await store.appliedMigrations().map(\.version) == SQLiteMigrations.all.map(\.version))
                #expect(try await store.signingKeys() == [])
                #expect(try await store.serviceCredentials(appID: app.id) == [])

                expected.accessTokenTTLSeconds = 120
                expected.audiences = ["https://chat.example.com"]
                let changes = AppChanges(accessTokenTTLSeconds: 120, audiences: ["https://chat.example.com"])
                #expect(try await store.updateApp(id: app.id, changes: changes) == expected)
                let key = makeSigningKey(sequence: 1)
                #expect(try await store.addSigningKey(key))
                #expect(try await store.signingKeys() == [key])
                let credential = makeServiceCredential(app: app.id)
                try await store.createServiceCredential(credential)
                #expect(try await store.serviceCredential(hash: credential.credentialHash) == credential)
            }
        }
    }
}
