import VouchStore

/// How a `PostgresStore` uses the database server: how many connections, how long anything waits.
/// Each range is a static member beside its field, checked by `validate()` (which `open` runs).
public struct PostgresStoreOptions: Sendable {
    /// The most connections this instance opens. Several instances share the server's
    /// `max_connections`, so the sum over instances must stay below it.
    public var poolSize: Int
    /// The bound on every wait: connecting, waiting for a free connection, a statement, a lock. A
    /// store operation that has not finished by then fails as `StoreError.unavailable`, so a request
    /// gets its 503 instead of hanging while the database is down.
    public var timeout: Duration
    /// How long the feed of session endings (`followSessionEndings`) waits before its first
    /// attempt to listen again after its connection dropped; each failed attempt doubles it.
    public var feedReconnectDelay: Duration
    /// The longest the feed waits between two attempts (before jitter).
    public var feedReconnectCeiling: Duration

    static let poolSizeRange = 1...1000
    static let timeoutSecondsRange: ClosedRange<Int64> = 1...300
    static let feedReconnectRange: ClosedRange<Duration> = .milliseconds(1) ... .seconds(300)

    public func validate() throws(ConfigurationError) {
        try ConfigurationError.check(poolSize, in: Self.poolSizeRange, "poolSize")
        let seconds = Self.timeoutSecondsRange
        guard (.seconds(seconds.lowerBound) ... .seconds(seconds.upperBound)).contains(timeout) else {
            throw ConfigurationError(field: "timeout", accepted: "\(seconds.lowerBound)…\(seconds.upperBound) seconds")
        }
        guard Self.feedReconnectRange.contains(feedReconnectDelay) else {
            throw ConfigurationError(field: "feedReconnectDelay", accepted: "1 ms…300 seconds")
        }
        guard Self.feedReconnectRange.contains(feedReconnectCeiling), feedReconnectCeiling >= feedReconnectDelay else {
            throw ConfigurationError(field: "feedReconnectCeiling", accepted: "feedReconnectDelay…300 seconds")
        }
    }

    /// - Parameters:
    ///   - poolSize: The most connections this instance opens.
    ///   - timeout: The bound on every wait.
    ///   - feedReconnectDelay: The feed's first wait before listening again (0.1 s).
    ///   - feedReconnectCeiling: The feed's longest wait between attempts (5 s).
    public init(
        poolSize: Int = 10, timeout: Duration = .seconds(5), feedReconnectDelay: Duration = .milliseconds(100),
        feedReconnectCeiling: Duration = .seconds(5)
    ) {
        self.poolSize = poolSize
        self.timeout = timeout
        self.feedReconnectDelay = feedReconnectDelay
        self.feedReconnectCeiling = feedReconnectCeiling
    }

    var timeoutMilliseconds: Int64 {
        let (seconds, attoseconds) = timeout.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
