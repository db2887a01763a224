import Foundation

/// Where the verifier's copy of the issuer's key set stands: what a readiness check or an
/// operator looks at during an outage of the JWKS URL.
public struct KeySetStatus: Sendable, Equatable {
    /// The `kid`s of the keys in use, sorted.
    public let keyIDs: [String]
    /// When the keys in use were fetched; `nil` until a fetch succeeds, and tokens are refused until then.
    public let fetchedAt: Date?
    /// When the keys are fetched again (the answer's `max-age`, clamped).
    public let refreshDueAt: Date?
    /// Why the last fetch failed, when it did; cleared by the next success. The old keys stay in use.
    public let lastFailure: String?
    /// When the last fetch failed.
    public let lastFailureAt: Date?
    /// How many fetches succeeded since the verifier was made.
    public let successfulFetches: Int
    /// Whether a fetch is in flight now (at most one ever is).
    public let isRefreshing: Bool
}
