import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// Throws `.notFound` when one of `appIDs` names no app (a foreign key refuses it and the
    /// transaction writes nothing), `.alreadyExists` for a provider id or a key source's issuer in
    /// use.
    public func createProvider(_ provider: ProviderRecord) async throws {
        try await transaction("createProvider") { db in
            try await db.execute(
                """
                INSERT INTO providers (id, name, created_at) VALUES (\(provider.id), \(provider.name), \(provider.createdAt))
                """)
            try await Self.writeKeySource(provider.keySource, of: provider.id, db)
            for appID in Set(provider.appIDs) {
                try await db.execute("INSERT INTO provider_apps (provider_id, app_id) VALUES (\(provider.id), \(appID))")
            }
        }
    }

    /// Reads the provider and its apps in one statement, so the two are one snapshot.
    public func provider(id: UUID) async throws -> ProviderRecord? {
        try await single("provider") { db in
            try await db.rows("\(unescaped: Self.providerColumns) FROM providers p WHERE p.id = \(id)").first.map(Self.provider(row:))
        }
    }

    /// A provider's columns with the apps it is bound to, in one statement (one snapshot).
    static let providerColumns = """
        SELECT p.*, ARRAY(SELECT app_id FROM provider_apps WHERE provider_id = p.id ORDER BY app_id) AS app_ids
        """

    static func provider(row: PostgresRow) throws -> ProviderRecord {
        let record = PostgresRecordRow(row)
        return ProviderRecord(
            id: try record.uuid("id"), name: try record.text("name"),
            appIDs: try record.decode("app_ids", as: [UUID].self),
            createdAt: try record.int64("created_at"), keySource: try ProviderKeySource(row: record))
    }

    /// The row is locked first, so that two changes of one provider apply one after the other.
    public func updateProvider(id: UUID, change: ProviderChange) async throws -> ProviderRecord {
        try await transaction("updateProvider") { db in
            guard let row = try await db.rows("SELECT * FROM providers WHERE id = \(id) FOR UPDATE").first else {
                throw StoreError.notFound
            }
            if let name = change.name {
                try await db.execute("UPDATE providers SET name = \(name) WHERE id = \(id)")
            }
            if let keySource = change.keySource, keySource != (try ProviderKeySource(row: PostgresRecordRow(row))) {
                try await Self.writeKeySource(keySource, of: id, db)
                // What was fetched from the old source says nothing about the new one.
                try await db.execute("DELETE FROM provider_key_sets WHERE provider_id = \(id)")
                try await db.execute("DELETE FROM provider_source_keys WHERE provider_id = \(id)")
                try await db.execute("DELETE FROM provider_source_key_uses WHERE provider_id = \(id)")
            }
            guard
                let changed = try await db.rows("\(unescaped: Self.providerColumns) FROM providers p WHERE p.id = \(id)").first
            else { throw StoreError.notFound }
            return try Self.provider(row: changed)
        }
    }

    /// The key source's columns; `nil` clears them. A taken issuer breaks the unique index.
    private static func writeKeySource(_ source: ProviderKeySource?, of id: UUID, _ db: PostgresRunner) async throws {
        try await db.execute(
            """
            UPDATE providers SET jwks_uri = \(source?.jwksURI), issuer = \(source?.issuer), client_id = \(source?.clientID),
                federated = \(source?.federated == true), source_algorithm = \(source?.algorithm.rawValue)
            WHERE id = \(id)
            """)
    }

    /// Idempotent; the foreign keys report an unknown provider or app.
    public func bindProvider(_ providerID: UUID, toApp appID: UUID) async throws {
        try await single("bindProvider") { db in
            try await db.execute(
                """
                INSERT INTO provider_apps (provider_id, app_id) VALUES (\(providerID), \(appID)) ON CONFLICT DO NOTHING
                """)
        }
    }

    /// Checked in the same statement, because deleting writes nothing a foreign key could refuse.
    /// Providers and apps are never deleted, so the check cannot go stale.
    public func unbindProvider(_ providerID: UUID, fromApp appID: UUID) async throws {
        try await single("unbindProvider") { db in
            let rows = try await db.rows(
                """
                WITH gone AS (DELETE FROM provider_apps WHERE provider_id = \(providerID) AND app_id = \(appID))
                SELECT EXISTS (SELECT 1 FROM providers WHERE id = \(providerID))
                   AND EXISTS (SELECT 1 FROM apps WHERE id = \(appID)) AS known
                """)
            guard let row = rows.first, try PostgresRecordRow(row).bool("known") else { throw StoreError.notFound }
        }
    }
}
