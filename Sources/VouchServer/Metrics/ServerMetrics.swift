import CoreMetrics
import Prometheus
import VouchStore

/// The server's Prometheus metrics: counters and a gauge recorded through swift-metrics with this
/// server's own factory rather than the process-wide `MetricsSystem` (two servers in one process,
/// as the tests run many, never mix their counts, and nothing global has to be bootstrapped
/// first), and the two duration histograms, which every request records, of our own
/// (`LatencyHistogramFamily`, written after the registry's metrics), without a lock a value.
///
/// Labels are bounded: a route *pattern* (never a path with ids), an HTTP method, a status, a
/// sign-in outcome and a §5.4 reason or error id. Nothing a client sends becomes a label verbatim.
struct ServerMetrics: Sendable {
    /// The counters and the gauge. The duration histograms are not in it: `GET /metrics`
    /// (`exposition()`) writes them after it, so a registry emitted on its own lacks them.
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory
    /// The two duration histograms, kept outside the registry (`LatencyHistogram`: no lock a
    /// value) and written after it by `exposition()`.
    private let requestDurations: LatencyHistogramFamily
    private let storeDurations: LatencyHistogramFamily
    private let requestHandles = MetricHandles<RequestSeries, (count: CoreMetrics.Counter, duration: LatencyHistogram)>()
    private let signInHandles = MetricHandles<[String], CoreMetrics.Counter>()
    /// The one sign-in series a storm records over and over, made once: looking it up by its
    /// labels built an array and hashed two strings every sign-in.
    private let acceptedSignIns: CoreMetrics.Counter
    /// PROTOCOL §8.16's counters, made once: minting and introspection are per-request routes.
    let accessTokenCounters: AccessTokenCounters

    init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        let factory = PrometheusMetricsFactory(registry: registry)
        self.factory = factory
        accessTokenCounters = AccessTokenCounters(factory: factory)
        acceptedSignIns = Counter(
            label: Self.signInsLabel, dimensions: [("outcome", SignInOutcome.accepted.rawValue), ("reason", "none")],
            factory: factory)
        let requestBuckets: [Duration] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        requestDurations = LatencyHistogramFamily(name: "vouch_http_request_duration_seconds", upperBounds: requestBuckets)
        // Store operations are mostly well under a millisecond; their histogram starts lower.
        storeDurations = LatencyHistogramFamily(
            name: Self.storeDurationLabel,
            upperBounds: [.microseconds(100), .microseconds(250), .microseconds(500)] + requestBuckets)
    }

    static let storeDurationLabel = "vouch_store_operation_duration_seconds"
    static let signInsLabel = "vouch_sign_ins_total"

    func recordRequest(method: String, route: String, status: Int, duration: Duration) {
        let factory = self.factory
        let requestDurations = self.requestDurations
        let handles = requestHandles.handle(RequestSeries(method: method, route: route, status: status)) {
            (
                Counter(
                    label: "vouch_http_requests_total",
                    dimensions: [("method", method), ("route", route), ("status", String(status))], factory: factory),
                requestDurations.histogram(labels: [("method", method), ("route", route)])
            )
        }
        handles.count.increment()
        handles.duration.record(duration)
    }

    /// One timer per store operation, made once: the store is called several times per request,
    /// and making a handle looks it up in the registry (under its lock) every time.
    func storeOperationTimers() -> [StoreOperation: LatencyHistogram] {
        Dictionary(
            uniqueKeysWithValues: StoreOperation.allCases.map { operation in
                (operation, storeDurations.histogram(labels: [("operation", operation.rawValue)]))
            })
    }

    /// A store operation that threw, by the failure's kind (rare: the handle is made on demand).
    func recordStoreFailure(_ operation: StoreOperation, kind: StoreFailureKind) {
        Counter(
            label: "vouch_store_errors_total", dimensions: [("operation", operation.rawValue), ("kind", kind.rawValue)],
            factory: factory
        )
        .increment()
    }

    /// Sessions neither ended nor expired, across every app, as last counted by housekeeping.
    func setLiveSessions(_ count: Int) {
        Gauge(label: "vouch_live_sessions", factory: factory).record(count)
    }

    /// One `POST /sessions`: `accepted`, `rejected` (a token rule, `reason` is its §5.4 id) or
    /// `refused` (before the token was judged: rate limit, unknown app, bad body; `reason` is
    /// the error id).
    func recordSignIn(outcome: SignInOutcome, reason: String) {
        let factory = self.factory
        signInHandles.handle([outcome.rawValue, reason]) {
            Counter(label: Self.signInsLabel, dimensions: [("outcome", outcome.rawValue), ("reason", reason)], factory: factory)
        }.increment()
    }

    /// One accepted `POST /sessions` (`outcome="accepted"`, `reason="none"`): the series a storm
    /// records over and over, through a counter made once rather than found by its labels.
    func recordAcceptedSignIn() {
        acceptedSignIns.increment()
    }

    /// Audit entries (counted in events: one rejected sign-in, one admin action) that were not
    /// written: the in-memory tally was full, or the database refused the write.
    func recordAuditDropped(kind: AuditKind, count: Int) {
        Counter(label: "vouch_audit_dropped_total", dimensions: [("kind", kind.rawValue)], factory: factory)
            .increment(by: count)
    }

    enum SignInOutcome: String {
        case accepted, rejected, refused
    }

    static let sessionsEndedLabel = "vouch_sessions_ended_total"

    /// Sessions ended by a request, by kind (`SessionsEndedKind`); every kind's series exists from
    /// the start, at 0.
    func recordSessionsEnded(_ kind: SessionsEndedKind, count: Int) {
        guard count > 0 else { return }
        Counter(label: Self.sessionsEndedLabel, dimensions: [("kind", kind.rawValue)], factory: factory).increment(by: count)
    }

    /// Makes every sessions-ended series, so that a dashboard sees 0 rather than nothing.
    func registerSessionsEnded() {
        for kind in SessionsEndedKind.allCases {
            Counter(label: Self.sessionsEndedLabel, dimensions: [("kind", kind.rawValue)], factory: factory).increment(by: 0)
        }
    }

    /// Open sockets of the live channel on this instance.
    func setLiveSockets(_ count: Int) {
        Gauge(label: "vouch_live_sockets", factory: factory).record(count)
    }

    enum LiveChallengeOutcome: String, CaseIterable {
        case pushed, answered, expired
    }

    static let liveChallengesLabel = "vouch_live_challenges_total"

    /// A challenge sent on the live channel, answered there, or left unanswered past its margin.
    func recordLiveChallenge(_ outcome: LiveChallengeOutcome) {
        Counter(label: Self.liveChallengesLabel, dimensions: [("outcome", outcome.rawValue)], factory: factory).increment()
    }

    /// Makes the live channel's series, so that a dashboard sees 0 rather than nothing.
    func registerLiveChannel() {
        setLiveSockets(0)
        for outcome in LiveChallengeOutcome.allCases {
            Counter(label: Self.liveChallengesLabel, dimensions: [("outcome", outcome.rawValue)], factory: factory).increment(by: 0)
        }
    }

    /// The text exposition format, for `GET /metrics`: the registry's metrics, then the duration
    /// histograms of our own.
    func exposition() -> [UInt8] {
        var buffer = registry.emitToBuffer()
        requestDurations.emit(into: &buffer)
        storeDurations.emit(into: &buffer)
        return buffer
    }
}

extension Duration {
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
