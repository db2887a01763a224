import Foundation
import PostgresNIO
import VouchProtocol
import VouchStore

extension PostgresStore {
    public func keySetState(providerID: UUID, usesSince: Int64) async throws -> KeySetState? {
        try await transaction("keySetState") { db in
            guard let row = try await db.rows("SELECT * FROM provider_key_sets WHERE provider_id = \(providerID)").first
            else { return nil }
            var state = try KeySetState(row: PostgresRecordRow(row))
            state.keys = try await db.rows(
                """
                SELECT k.*, COALESCE((SELECT SUM(count) FROM provider_source_key_uses u
                                      WHERE u.provider_id = k.provider_id AND u.kid = k.kid
                                        AND u.hour >= \(SourceKeyUse.hour(of: usesSince))), 0)::bigint AS uses
                FROM provider_source_keys k WHERE k.provider_id = \(providerID)
                ORDER BY k.first_seen_at DESC, k.kid
                """
            ).map { try SourceKeySighting(row: PostgresRecordRow($0)) }
            return state
        }
    }

    /// One statement decides (the upsert's row lock), so two instances cannot both take the turn.
    public func beginKeySetFetch(providerID: UUID, source: String, now: Int64, unlessBegunAfter: Int64) async throws -> Bool {
        try await single("beginKeySetFetch") { db in
            try await db.count(
                """
                INSERT INTO provider_key_sets AS s (provider_id, source, attempted_at)
                SELECT id, \(source), \(now) FROM providers WHERE id = \(providerID)
                ON CONFLICT (provider_id) DO UPDATE SET
                    attempted_at = excluded.attempted_at,
                    source = excluded.source,
                    jwks_url = CASE WHEN s.source = excluded.source THEN s.jwks_url END,
                    document = CASE WHEN s.source = excluded.source THEN s.document END,
                    fetched_at = CASE WHEN s.source = excluded.source THEN s.fetched_at END,
                    fresh_until = CASE WHEN s.source = excluded.source THEN s.fresh_until END,
                    failing_since = CASE WHEN s.source = excluded.source THEN s.failing_since END,
                    last_error = CASE WHEN s.source = excluded.source THEN s.last_error END
                WHERE s.source <> excluded.source OR s.attempted_at <= \(unlessBegunAfter)
                RETURNING 1
                """) == 1
        }
    }

    public func finishKeySetFetch(_ fetch: KeySetFetch) async throws -> KeySetHealthChange {
        try await transaction("finishKeySetFetch") { db in
            guard
                let row = try await db.rows(
                    """
                    SELECT failing_since FROM provider_key_sets
                    WHERE provider_id = \(fetch.providerID) AND source = \(fetch.source) FOR UPDATE
                    """
                ).first
            else { return .unchanged }
            let wasFailing = try PostgresRecordRow(row).optionalInt64("failing_since") != nil
            switch fetch.outcome {
            case .fetched(let document, let jwksURL, let freshUntil, let keys):
                try await db.execute(
                    """
                    UPDATE provider_key_sets SET jwks_url = \(jwksURL), document = \(document), fetched_at = \(fetch.at),
                        fresh_until = \(freshUntil), failing_since = NULL, last_error = NULL
                    WHERE provider_id = \(fetch.providerID)
                    """)
                try await db.execute("UPDATE provider_source_keys SET present = false WHERE provider_id = \(fetch.providerID)")
                for key in keys {
                    try await db.execute(
                        """
                        INSERT INTO provider_source_keys (provider_id, kid, fingerprint, key_type, first_seen_at, last_seen_at, present)
                        VALUES (\(fetch.providerID), \(key.keyID), \(key.fingerprint), \(key.keyType), \(fetch.at), \(fetch.at), true)
                        ON CONFLICT (provider_id, kid, fingerprint) DO UPDATE SET last_seen_at = excluded.last_seen_at, present = true
                        """)
                }
                guard wasFailing else { return .unchanged }
                try await Self.recordEvent(
                    .keySourceRecovered, providerID: fetch.providerID, at: fetch.at,
                    data: SecurityEventData.keySource(providerID: fetch.providerID, reason: nil), db)
                return .recovered
            case .failed(let reason):
                try await db.execute(
                    """
                    UPDATE provider_key_sets SET failing_since = COALESCE(failing_since, \(fetch.at)), last_error = \(reason)
                    WHERE provider_id = \(fetch.providerID)
                    """)
                guard !wasFailing else { return .unchanged }
                try await Self.recordEvent(
                    .keySourceFailing, providerID: fetch.providerID, at: fetch.at,
                    data: SecurityEventData.keySource(providerID: fetch.providerID, reason: reason), db)
                return .startedFailing
            }
        }
    }

    /// Instances add to one row per key and hour; they meet on it only at their flushes.
    public func addSourceKeyUses(_ uses: [SourceKeyUse]) async throws {
        guard !uses.isEmpty else { return }
        // In one order, so that two flushes of overlapping counts cannot deadlock.
        let sorted = uses.sorted { ($0.providerID.uuidString, $0.keyID, $0.hour) < ($1.providerID.uuidString, $1.keyID, $1.hour) }
        try await transaction("addSourceKeyUses") { db in
            for use in sorted {
                // A provider deleted meanwhile has nothing to count against: its use is dropped.
                try await db.execute(
                    """
                    INSERT INTO provider_source_key_uses (provider_id, kid, hour, count)
                    SELECT id, \(use.keyID), \(use.hour), \(use.count) FROM providers WHERE id = \(use.providerID)
                    ON CONFLICT (provider_id, kid, hour) DO UPDATE
                    SET count = provider_source_key_uses.count + excluded.count
                    """)
            }
        }
    }

    /// The provider a sign-in's token selects for its fetched keys, with its standing to `appID`.
    static func sourceProvider(_ selector: ProviderSelector, appID: UUID, _ db: PostgresRunner) async throws -> SourceProviderFact? {
        let rows =
            switch selector {
            case .id(let id): try await db.rows("\(unescaped: providerColumns) FROM providers p WHERE p.id = \(id)")
            case .issuer(let issuer): try await db.rows("\(unescaped: providerColumns) FROM providers p WHERE p.issuer = \(issuer)")
            }
        guard let row = rows.first else { return nil }
        let provider = try Self.provider(row: row)
        return SourceProviderFact(provider: provider, boundToApp: provider.appIDs.contains(appID))
    }
}
