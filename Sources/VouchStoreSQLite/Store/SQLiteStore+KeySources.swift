import Foundation
import VouchProtocol
import VouchStore

extension SQLiteStore {
    public func keySetState(providerID: UUID, usesSince: Int64) async throws -> KeySetState? {
        try await read("keySetState") { db in
            guard let row = try db.rows("SELECT * FROM provider_key_sets WHERE provider_id = ?", [.uuid(providerID)]).first
            else { return nil }
            var state = try KeySetState(row: row)
            state.keys = try db.rows(
                """
                SELECT k.*, COALESCE((SELECT SUM(count) FROM provider_source_key_uses u
                                      WHERE u.provider_id = k.provider_id AND u.kid = k.kid AND u.hour >= ?), 0) AS uses
                FROM provider_source_keys k WHERE k.provider_id = ?
                ORDER BY k.first_seen_at DESC, k.kid
                """,
                [.int64(SourceKeyUse.hour(of: usesSince)), .uuid(providerID)]
            ).map(SourceKeySighting.init(row:))
            return state
        }
    }

    public func beginKeySetFetch(providerID: UUID, source: String, now: Int64, unlessBegunAfter: Int64) async throws -> Bool {
        // One statement decides, so two instances cannot both take the turn.
        try await exclusive("beginKeySetFetch", invalidating: .none) { db in
            try db.changes(
                """
                INSERT INTO provider_key_sets (provider_id, source, attempted_at)
                SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM providers WHERE id = ?1)
                ON CONFLICT (provider_id) DO UPDATE SET
                    attempted_at = excluded.attempted_at,
                    source = excluded.source,
                    jwks_url = CASE WHEN source = excluded.source THEN jwks_url END,
                    document = CASE WHEN source = excluded.source THEN document END,
                    fetched_at = CASE WHEN source = excluded.source THEN fetched_at END,
                    fresh_until = CASE WHEN source = excluded.source THEN fresh_until END,
                    failing_since = CASE WHEN source = excluded.source THEN failing_since END,
                    last_error = CASE WHEN source = excluded.source THEN last_error END
                WHERE source <> excluded.source OR attempted_at <= ?4
                """,
                [.uuid(providerID), .text(source), .int64(now), .int64(unlessBegunAfter)]) == 1
        }
    }

    public func finishKeySetFetch(_ fetch: KeySetFetch) async throws -> KeySetHealthChange {
        try await transaction("finishKeySetFetch", invalidating: .none) { db in
            guard
                let row = try db.rows(
                    "SELECT failing_since FROM provider_key_sets WHERE provider_id = ? AND source = ?",
                    [.uuid(fetch.providerID), .text(fetch.source)]
                ).first
            else { return .unchanged }
            let wasFailing = try row.optionalInt64("failing_since") != nil
            switch fetch.outcome {
            case .fetched(let document, let jwksURL, let freshUntil, let keys):
                try db.execute(
                    """
                    UPDATE provider_key_sets SET jwks_url = ?, document = ?, fetched_at = ?, fresh_until = ?,
                        failing_since = NULL, last_error = NULL
                    WHERE provider_id = ?
                    """,
                    [.text(jwksURL), .text(document), .int64(fetch.at), .int64(freshUntil), .uuid(fetch.providerID)])
                try db.execute("UPDATE provider_source_keys SET present = 0 WHERE provider_id = ?", [.uuid(fetch.providerID)])
                for key in keys {
                    try db.execute(
                        """
                        INSERT INTO provider_source_keys (provider_id, kid, fingerprint, key_type, first_seen_at, last_seen_at, present)
                        VALUES (?, ?, ?, ?, ?, ?, 1)
                        ON CONFLICT (provider_id, kid, fingerprint) DO UPDATE SET last_seen_at = excluded.last_seen_at, present = 1
                        """,
                        [
                            .uuid(fetch.providerID), .text(key.keyID), .text(key.fingerprint), .text(key.keyType),
                            .int64(fetch.at), .int64(fetch.at),
                        ])
                }
                guard wasFailing else { return .unchanged }
                try Self.recordEvent(
                    .keySourceRecovered, providerID: fetch.providerID, at: fetch.at,
                    data: { SecurityEventData.keySource(providerID: fetch.providerID, reason: nil) }, db)
                return .recovered
            case .failed(let reason):
                try db.execute(
                    """
                    UPDATE provider_key_sets SET failing_since = COALESCE(failing_since, ?), last_error = ?
                    WHERE provider_id = ?
                    """,
                    [.int64(fetch.at), .text(reason), .uuid(fetch.providerID)])
                guard !wasFailing else { return .unchanged }
                try Self.recordEvent(
                    .keySourceFailing, providerID: fetch.providerID, at: fetch.at,
                    data: { SecurityEventData.keySource(providerID: fetch.providerID, reason: reason) }, db)
                return .startedFailing
            }
        }
    }

    public func addSourceKeyUses(_ uses: [SourceKeyUse]) async throws {
        guard !uses.isEmpty else { return }
        try await transaction("addSourceKeyUses", invalidating: .none) { db in
            for use in uses {
                // A provider deleted meanwhile has nothing to count against: its use is dropped.
                try db.execute(
                    """
                    INSERT INTO provider_source_key_uses (provider_id, kid, hour, count)
                    SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM providers WHERE id = ?1)
                    ON CONFLICT (provider_id, kid, hour) DO UPDATE SET count = count + excluded.count
                    """,
                    [.uuid(use.providerID), .text(use.keyID), .int64(use.hour), .int64(use.count)])
            }
        }
    }

    /// The provider a sign-in's token selects for its fetched keys, with its standing to `appID`.
    static func sourceProvider(_ selector: ProviderSelector, appID: UUID, _ db: SQLiteRunner) throws -> SourceProviderFact? {
        let rows =
            switch selector {
            case .id(let id): try db.rows("SELECT * FROM providers WHERE id = ?", [.uuid(id)])
            case .issuer(let issuer): try db.rows("SELECT * FROM providers WHERE issuer = ?", [.text(issuer)])
            }
        guard let row = rows.first else { return nil }
        let provider = try Self.provider(row: row, db)
        return SourceProviderFact(provider: provider, boundToApp: provider.appIDs.contains(appID))
    }
}
