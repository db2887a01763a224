import Foundation
import Testing
import VouchStore
import VouchStoreConformance
import VouchPostgresTestSupport

@testable import VouchStorePostgres

@Suite(
    "PostgreSQL schema version 6: access-token settings, signing keys and service credentials on a version 5 database",
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5)))
struct PostgresAccessTokenMigrationTests {
    @Test("apps keep their rows and get the default lifetime and no audiences; the new tables start empty and work")
    func upgradeFromVersion5() async throws {
        try await PostgresTestDatabase.with { url in
            let appID = UUID()
            try await makePostgresDatabase(at: url, asVersion: 5) { db in
                try await db.execute(
                    """
                    INSERT INTO apps (id, name, session_ttl_seconds, created_at, challenge_margin_seconds)
                    VALUES (\(appID), 'App', 3600, \(t0), 45)
                    """)
            }

            try await PostgresStore.open(url: url, options: testOptions) { store in
                var expected = AppRecord(id: appID, name: "App", sessionTTLSeconds: 3600, createdAt: t0, challengeMarginSeconds: 45)
                #expect(try await store.app(id: appID) == expected, "the defaults")
                #expect(expected.accessTokenTTLSeconds == 300 && expected.audiences == [])
                #expect(try await store.appliedMigrations().map(\.version) == PostgresMigrations.all.map(\.version))
                #expect(try await store.signingKeys() == [])
                #expect(try await store.serviceCredentials(appID: appID) == [])

                expected.accessTokenTTLSeconds = 120
                expected.audiences = ["https://chat.example.com"]
                let changes = AppChanges(accessTokenTTLSeconds: 120, audiences: ["https://chat.example.com"])
                #expect(try await store.updateApp(id: appID, changes: changes) == expected)
                let key = makeSigningKey(sequence: 1)
                #expect(try await store.addSigningKey(key))
                #expect(try await store.signingKeys() == [key])
                let credential = makeServiceCredential(app: appID)
                try await store.createServiceCredential(credential)
                #expect(try await store.serviceCredential(hash: credential.credentialHash) == credential)
            }
        }
    }
}
