import Foundation
import VouchStore

extension SQLiteStore {
    /// Throws `.notFound` when one of `appIDs` names no app (nothing is written then), and
    /// `.alreadyExists` for a provider id in use.
    public func createProvider(_ provider: ProviderRecord) async throws {
        try await transaction("createProvider") { db in
            try db.execute(
                "INSERT INTO providers (id, name, created_at) VALUES (?, ?, ?)",
                [.uuid(provider.id), .text(provider.name), .int64(provider.createdAt)])
            for appID in Set(provider.appIDs) {
                try db.execute(
                    "INSERT INTO provider_apps (provider_id, app_id) VALUES (?, ?)",
                    [.uuid(provider.id), .uuid(appID)])
            }
        }
    }

    public func provider(id: UUID) async throws -> ProviderRecord? {
        try await read("provider") { db in
            guard let row = try db.rows("SELECT * FROM providers WHERE id = ?", [.uuid(id)]).first else {
                return nil
            }
            // Lower-case hexadecimal text sorts like `UUID.uuidString`: digits before letters.
            let appIDs = try db.rows(
                "SELECT app_id FROM provider_apps WHERE provider_id = ? ORDER BY app_id", [.uuid(id)]
            ).map { try $0.uuid("app_id") }
            return ProviderRecord(
                id: try row.uuid("id"), name: try row.text("name"), appIDs: appIDs,
                createdAt: try row.int64("created_at"))
        }
    }

    public func bindProvider(_ providerID: UUID, toApp appID: UUID) async throws {
        try await transaction("bindProvider") { db in
            try Self.requireProviderAndApp(providerID, appID, db)
            try db.execute(
                "INSERT INTO provider_apps (provider_id, app_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.uuid(providerID), .uuid(appID)])
        }
    }

    public func unbindProvider(_ providerID: UUID, fromApp appID: UUID) async throws {
        try await transaction("unbindProvider") { db in
            try Self.requireProviderAndApp(providerID, appID, db)
            try db.execute(
                "DELETE FROM provider_apps WHERE provider_id = ? AND app_id = ?",
                [.uuid(providerID), .uuid(appID)])
        }
    }

    /// Checked explicitly because unbinding writes nothing a foreign key could refuse.
    private static func requireProviderAndApp(_ providerID: UUID, _ appID: UUID, _ db: SQLiteRunner) throws {
        let rows = try db.rows(
            """
            SELECT EXISTS (SELECT 1 FROM providers WHERE id = ?) AS provider,
                   EXISTS (SELECT 1 FROM apps WHERE id = ?) AS app
            """,
            [.uuid(providerID), .uuid(appID)])
        guard let row = rows.first, try row.bool("provider"), try row.bool("app") else {
            throw StoreError.notFound
        }
    }
}
