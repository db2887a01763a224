import Foundation
import VouchProtocol

extension ProviderKeySource {
    /// The key source of a `providers` row, `nil` when it has neither a JWKS URL nor an issuer.
    public init?(row: some RecordRow) throws {
        let jwksURI = try row.optionalText("jwks_uri")
        let issuer = try row.optionalText("issuer")
        guard jwksURI != nil || issuer != nil else { return nil }
        let algorithm = try row.optionalText("source_algorithm").map { text in
            guard let algorithm = SourceKeyAlgorithm(rawValue: text) else {
                throw StoreError.unavailable("corrupt row: column source_algorithm has an unexpected value")
            }
            return algorithm
        }
        self.init(
            jwksURI: jwksURI, issuer: issuer, clientID: try row.optionalText("client_id"),
            federated: try row.bool("federated"), algorithm: algorithm ?? .rs256)
    }
}

extension KeySetState {
    /// A `provider_key_sets` row, without its keys.
    public init(row: some RecordRow) throws {
        self.init(
            providerID: try row.uuid("provider_id"), source: try row.text("source"),
            jwksURL: try row.optionalText("jwks_url"), document: try row.optionalText("document"),
            fetchedAt: try row.optionalInt64("fetched_at"), freshUntil: try row.optionalInt64("fresh_until"),
            attemptedAt: try row.int64("attempted_at"), failingSince: try row.optionalInt64("failing_since"),
            lastError: try row.optionalText("last_error"))
    }
}

extension SourceKeySighting {
    /// A `provider_source_keys` row with its `uses` summed.
    public init(row: some RecordRow) throws {
        self.init(
            keyID: try row.text("kid"), keyType: try row.text("key_type"), fingerprint: try row.text("fingerprint"),
            firstSeenAt: try row.int64("first_seen_at"), lastSeenAt: try row.int64("last_seen_at"),
            present: try row.bool("present"), tokensVerified: try row.int64("uses"))
    }
}

extension SourceKeyUse {
    /// How long hourly counts are kept: a day is shown, a second day spares the edge.
    public static let retentionSeconds: Int64 = 2 * 86_400

    /// The first second of the hour holding `time`.
    public static func hour(of time: Int64) -> Int64 {
        time - ((time % 3_600) + 3_600) % 3_600
    }
}

extension SecurityEventData {
    /// `key_source.failing` and `key_source.recovered`: the provider, and for a failure why it
    /// fails (the last good keys keep verifying meanwhile).
    public static func keySource(providerID: UUID, reason: String?) -> String {
        var fields: [String: JSONValue] = ["provider_id": .string(providerID.uuidString.lowercased())]
        if let reason { fields["reason"] = .string(reason) }
        return text(fields)
    }
}
