import Foundation
import VouchStore

extension SQLiteStore {
    /// Throws `.notFound` when one of `appIDs` names no app (nothing is written then), and
    /// `.alreadyExists` for a provider id or a key source's issuer in use.
    public func createProvider(_ provider: ProviderRecord) async throws {
        try await transaction("createProvider") { db in
            try db.execute(
                "INSERT INTO providers (id, name, created_at) VALUES (?, ?, ?)",
                [.uuid(provider.id), .text(provider.name), .int64(provider.createdAt)])
            try Self.writeKeySource(provider.keySource, of: provider.id, db)
            for appID in Set(provider.appIDs) {
                try db.execute(
                    "INSERT INTO provider_apps (provider_id, app_id) VALUES (?, ?)",
                    [.uuid(provider.id), .uuid(appID)])
            }
        }
    }

    public func provider(id: UUID) async throws -> ProviderRecord? {
        try await read("provider") { db in
            try db.rows("SELECT * FROM providers WHERE id = ?", [.uuid(id)]).first.map { try Self.provider(row: $0, db) }
        }
    }

    /// A `providers` row with the apps it is bound to.
    static func provider(row: SQLiteRow, _ db: SQLiteRunner) throws -> ProviderRecord {
        let id = try row.uuid("id")
        // Lower-case hexadecimal text sorts like `UUID.uuidString`: digits before letters.
        let appIDs = try db.rows(
            "SELECT app_id FROM provider_apps WHERE provider_id = ? ORDER BY app_id", [.uuid(id)]
        ).map { try $0.uuid("app_id") }
        return ProviderRecord(
            id: id, name: try row.text("name"), appIDs: appIDs,
            createdAt: try row.int64("created_at"), keySource: try ProviderKeySource(row: row))
    }

    public func updateProvider(id: UUID, change: ProviderChange) async throws -> ProviderRecord {
        try await transaction("updateProvider") { db in
            let rows = try db.rows("SELECT * FROM providers WHERE id = ?", [.uuid(id)])
            guard let row = rows.first else { throw StoreError.notFound }
            if let name = change.name {
                try db.execute("UPDATE providers SET name = ? WHERE id = ?", [.text(name), .uuid(id)])
            }
            if let keySource = change.keySource, keySource != (try ProviderKeySource(row: row)) {
                try Self.writeKeySource(keySource, of: id, db)
                // What was fetched from the old source says nothing about the new one.
                for table in ["provider_key_sets", "provider_source_keys", "provider_source_key_uses"] {
                    try db.execute("DELETE FROM \(table) WHERE provider_id = ?", [.uuid(id)])
                }
            }
            return ()
        }
        guard let provider = try await provider(id: id) else { throw StoreError.notFound }
        return provider
    }

    /// The key source's columns; `nil` clears them. A taken issuer breaks the unique index.
    private static func writeKeySource(_ source: ProviderKeySource?, of id: UUID, _ db: SQLiteRunner) throws {
        try db.execute(
            """
            UPDATE providers SET jwks_uri = ?, issuer = ?, client_id = ?, federated = ?, source_algorithm = ?
            WHERE id = ?
            """,
            [
                .optionalText(source?.jwksURI), .optionalText(source?.issuer), .optionalText(source?.clientID),
                .int64(source?.federated == true ? 1 : 0), .optionalText(source?.algorithm.rawValue), .uuid(id),
            ])
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
