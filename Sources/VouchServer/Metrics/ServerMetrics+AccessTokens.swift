import CoreMetrics
import Prometheus

/// The series of PROTOCOL §8.16: access tokens minted, introspections by verdict, and the
/// services following the stream of endings on this instance.
extension ServerMetrics {
    static let accessTokensLabel = "vouch_access_tokens_minted_total"
    static let introspectionsLabel = "vouch_introspections_total"

    func accessTokenMinted() { accessTokenCounters.minted.increment() }

    func recordIntrospection(active: Bool) {
        (active ? accessTokenCounters.activeIntrospections : accessTokenCounters.inactiveIntrospections).increment()
    }

    func setSessionEventStreams(_ count: Int) {
        Gauge(label: "vouch_session_event_streams", factory: factory).record(count)
    }

    /// Makes the gauge, so that a dashboard sees 0 rather than nothing (the counters exist from
    /// the start).
    func registerAccessTokens() { setSessionEventStreams(0) }
}

/// The counters, each made once with its labels: looking a series up by its labels on every
/// request costs a lock and a hash of its name.
struct AccessTokenCounters: Sendable {
    let minted: CoreMetrics.Counter
    let activeIntrospections: CoreMetrics.Counter
    let inactiveIntrospections: CoreMetrics.Counter

    init(factory: PrometheusMetricsFactory) {
        minted = Counter(label: ServerMetrics.accessTokensLabel, factory: factory)
        activeIntrospections = Counter(label: ServerMetrics.introspectionsLabel, dimensions: [("active", "true")], factory: factory)
        inactiveIntrospections = Counter(label: ServerMetrics.introspectionsLabel, dimensions: [("active", "false")], factory: factory)
        for counter in [minted, activeIntrospections, inactiveIntrospections] { counter.increment(by: 0) }
    }
}
