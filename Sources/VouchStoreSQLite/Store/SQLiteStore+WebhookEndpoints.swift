import Foundation
import VouchStore

// Every write here drops the writer's kept subscriptions (`WriterSubscriptions`) first.
extension SQLiteStore {
    /// The app's foreign key makes an unknown app `.notFound`; the primary key makes an id in use
    /// `.alreadyExists` (`StoreError.from(sqlite:)`). Counted and inserted in one statement on the
    /// one writer, so the limit holds however many create at once.
    public func createWebhookEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws {
        let inserted = try await exclusive("createWebhookEndpoint", invalidating: .none) { [writerSubscriptions] db in
            writerSubscriptions.forgetAll()
            return try db.changes(
                """
                INSERT INTO webhook_endpoints (id, app_id, url, events, secret, created_at, updated_at, paused_at, pause_reason)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
                WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE app_id = ?2) < ?10
                """,
                [
                    .uuid(endpoint.id), .uuid(endpoint.appID), .text(endpoint.url), .text(WordListColumn.text(endpoint.events)),
                    .text(endpoint.secret), .int64(endpoint.createdAt), .int64(endpoint.updatedAt),
                    .optionalInt64(endpoint.pausedAt), .optionalText(endpoint.pauseReason), .int64(Int64(limit)),
                ])
        }
        guard inserted > 0 else { throw StoreError.limitReached }
    }

    /// Ties on `created_at` (same second) are broken by id, as PostgreSQL's listing does.
    public func webhookEndpoints(appID: UUID) async throws -> [WebhookEndpointRecord] {
        try await read("webhookEndpoints") { db in
            try db.rows("SELECT * FROM webhook_endpoints WHERE app_id = ? ORDER BY created_at, id", [.uuid(appID)])
                .map(WebhookEndpointRecord.init(row:))
        }
    }

    /// One statement; another app's endpoint matches no row, so it is `.notFound` as an unknown
    /// one is.
    public func updateWebhookEndpoint(id: UUID, appID: UUID, change: WebhookEndpointChange, now: Int64) async throws -> WebhookEndpointRecord {
        try await exclusive("updateWebhookEndpoint", invalidating: .none) { [writerSubscriptions] db in
            writerSubscriptions.forgetAll()
            let rows = try db.rows(
                """
                UPDATE webhook_endpoints SET url = COALESCE(?1, url), events = COALESCE(?2, events),
                    paused_at = CASE WHEN ?3 THEN NULL ELSE paused_at END,
                    pause_reason = CASE WHEN ?3 THEN NULL ELSE pause_reason END, updated_at = ?4
                WHERE id = ?5 AND app_id = ?6 RETURNING *
                """,
                [
                    .optionalText(change.url), .optionalText(change.events.map(WordListColumn.text)), .int64(change.resume ? 1 : 0),
                    .int64(now), .uuid(id), .uuid(appID),
                ])
            guard let row = rows.first else { throw StoreError.notFound }
            return try WebhookEndpointRecord(row: row)
        }
    }

    /// The first pause's time and reason are kept.
    public func pauseWebhookEndpoint(id: UUID, appID: UUID, reason: String, now: Int64) async throws -> WebhookEndpointRecord {
        try await exclusive("pauseWebhookEndpoint", invalidating: .none) { [writerSubscriptions] db in
            writerSubscriptions.forgetAll()
            let rows = try db.rows(
                """
                UPDATE webhook_endpoints SET pause_reason = CASE WHEN paused_at IS NULL THEN ?1 ELSE pause_reason END,
                    paused_at = COALESCE(paused_at, ?2)
                WHERE id = ?3 AND app_id = ?4 RETURNING *
                """,
                [.text(reason), .int64(now), .uuid(id), .uuid(appID)])
            guard let row = rows.first else { throw StoreError.notFound }
            return try WebhookEndpointRecord(row: row)
        }
    }

    public func deleteWebhookEndpoint(id: UUID, appID: UUID) async throws {
        let deleted = try await exclusive("deleteWebhookEndpoint", invalidating: .none) { [writerSubscriptions] db in
            writerSubscriptions.forgetAll()
            return try db.changes("DELETE FROM webhook_endpoints WHERE id = ? AND app_id = ?", [.uuid(id), .uuid(appID)])
        }
        guard deleted > 0 else { throw StoreError.notFound }
    }
}
