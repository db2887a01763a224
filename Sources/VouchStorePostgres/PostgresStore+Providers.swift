import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// Throws `.notFound` when one of `appIDs` names no app (a foreign key refuses it and the
    /// transaction writes nothing), `.alreadyExists` for a provider id in use.
    public func createProvider(_ provider: ProviderRecord) async throws {
        try await transaction("createProvider") { db in
            try await db.execute(
                """
                INSERT INTO providers (id, name, created_at) VALUES (\(provider.id), \(provider.name), \(provider.createdAt))
                """)
            for appID in Set(provider.appIDs) {
                try await db.execute("INSERT INTO provider_apps (provider_id, app_id) VALUES (\(provider.id), \(appID))")
            }
        }
    }

    /// Reads the provider and its apps in one statement, so the two are one snapshot.
    public func provider(id: UUID) async throws -> ProviderRecord? {
        try await single("provider") { db in
            guard
                let row = try await db.rows(
                    """
                    SELECT p.id, p.name, p.created_at,
                           ARRAY(SELECT app_id FROM provider_apps WHERE provider_id = p.id ORDER BY app_id) AS app_ids
                    FROM providers p WHERE p.id = \(id)
                    """
                ).first
            else { return nil }
            let record = PostgresRecordRow(row)
            return ProviderRecord(
                id: try record.uuid("id"), name: try record.text("name"),
                appIDs: try record.decode("app_ids", as: [UUID].self),
                createdAt: try record.int64("created_at"))
        }
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
