import CoreMetrics

/// `vouch_key_source_fetches_total{outcome}` (`fetched`, `failed`) and
/// `vouch_key_sources_failing`: the providers whose key source this instance last saw failing
/// (their last good keys still verify within the grace period).
extension ServerMetrics {
    static let keySourceFetchesLabel = "vouch_key_source_fetches_total"
    static let keySourcesFailingLabel = "vouch_key_sources_failing"

    func keySourceFetched(succeeded: Bool) {
        Counter(label: Self.keySourceFetchesLabel, dimensions: [("outcome", succeeded ? "fetched" : "failed")], factory: factory)
            .increment()
    }

    func setKeySourcesFailing(_ count: Int) {
        Gauge(label: Self.keySourcesFailingLabel, factory: factory).record(count)
    }

    /// Makes the gauge, so that a dashboard sees 0 rather than nothing.
    func registerKeySources() { setKeySourcesFailing(0) }
}
