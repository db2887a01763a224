import CoreMetrics

/// The series of PROTOCOL §8.16: access tokens minted, introspections by verdict, and the
/// services following the stream of endings on this instance.
extension ServerMetrics {
    static let accessTokensLabel = "vouch_access_tokens_minted_total"
    static let introspectionsLabel = "vouch_introspections_total"

    func accessTokenMinted() {
        Counter(label: Self.accessTokensLabel, factory: factory).increment()
    }

    func recordIntrospection(active: Bool) {
        Counter(label: Self.introspectionsLabel, dimensions: [("active", active ? "true" : "false")], factory: factory).increment()
    }

    func setSessionEventStreams(_ count: Int) {
        Gauge(label: "vouch_session_event_streams", factory: factory).record(count)
    }

    /// Makes every series, so that a dashboard sees 0 rather than nothing.
    func registerAccessTokens() {
        Counter(label: Self.accessTokensLabel, factory: factory).increment(by: 0)
        for active in [true, false] {
            Counter(label: Self.introspectionsLabel, dimensions: [("active", active ? "true" : "false")], factory: factory)
                .increment(by: 0)
        }
        setSessionEventStreams(0)
    }
}
