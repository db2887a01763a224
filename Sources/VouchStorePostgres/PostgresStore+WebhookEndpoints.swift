import Foundation
import PostgresNIO
import VouchStore

extension PostgresStore {
    /// The primary key makes an id in use `.alreadyExists` (23505). The app's row is locked first,
    /// so that racing creations for one app count one after the other and the limit holds.
    public func createWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws {
        try await transaction("createWebhookEndpoint") { db in
            guard try await !db.rows("SELECT id FROM apps WHERE id = \(endpoint.appID) FOR UPDATE").isEmpty else {
                throw StoreError.notFound
            }
            let count =
                try await db.rows("SELECT COUNT(*)::bigint AS n FROM webhook_endpoints WHERE app_id = \(endpoint.appID)")
                .first.map { try PostgresRecordRow($0).int64("n") } ?? 0
            guard count < Int64(limit) else { throw StoreError.limitReached }
            try await db.execute(
                """
                INSERT INTO webhook_endpoints (id, app_id, url, events, secret, created_at, updated_at, paused_at, pause_reason)
                VALUES (\(endpoint.id), \(endpoint.appID), \(endpoint.url), \(WordListColumn.text(endpoint.events)),
                    \(endpoint.secret), \(endpoint.createdAt), \(endpoint.updatedAt), \(endpoint.pausedAt), \(endpoint.pauseReason))
                """)
        }
    }

    /// Ties on `created_at` (same second) are broken by id, as SQLite's listing does (a uuid
    /// orders as its lower-case text does).
    public func webhookEndpoints(appID: UUID) async throws -> [WebhookEndpointRecord] {
        try await single("webhookEndpoints") { db in
            try await db.rows("SELECT * FROM webhook_endpoints WHERE app_id = \(appID) ORDER BY created_at, id")
                .map(WebhookEndpointRecord.init(postgres:))
        }
    }

    /// One statement; another app's endpoint matches no row, so it is `.notFound` as an unknown
    /// one is.
    public func updateWebhookEndpoint(id: UUID, appID: UUID, change: WebhookEndpointChange, now: Int64) async throws -> WebhookEndpointRecord {
        let events = change.events.map(WordListColumn.text)
        return try await single("updateWebhookEndpoint") { db in
            let rows = try await db.rows(
                """
                UPDATE webhook_endpoints SET url = COALESCE(\(change.url)::text, url), events = COALESCE(\(events)::text, events),
                    paused_at = CASE WHEN \(change.resume) THEN NULL ELSE paused_at END,
                    pause_reason = CASE WHEN \(change.resume) THEN NULL ELSE pause_reason END, updated_at = \(now)
                WHERE id = \(id) AND app_id = \(appID) RETURNING *
                """)
            guard let row = rows.first else { throw StoreError.notFound }
            return try WebhookEndpointRecord(postgres: row)
        }
    }

    /// The first pause's time and reason are kept (a racing pause re-reads the row after the
    /// first commits).
    public func pauseWebhookEndpoint(id: UUID, appID: UUID, reason: String, now: Int64) async throws -> WebhookEndpointRecord {
        try await single("pauseWebhookEndpoint") { db in
            let rows = try await db.rows(
                """
                UPDATE webhook_endpoints SET pause_reason = CASE WHEN paused_at IS NULL THEN \(reason) ELSE pause_reason END,
                    paused_at = COALESCE(paused_at, \(now))
                WHERE id = \(id) AND app_id = \(appID) RETURNING *
                """)
            guard let row = rows.first else { throw StoreError.notFound }
            return try WebhookEndpointRecord(postgres: row)
        }
    }

    public func deleteWebhookEndpoint(id: UUID, appID: UUID) async throws {
        let deleted = try await single("deleteWebhookEndpoint") { db in
            try await db.rows("DELETE FROM webhook_endpoints WHERE id = \(id) AND app_id = \(appID) RETURNING id").count
        }
        guard deleted > 0 else { throw StoreError.notFound }
    }
}
