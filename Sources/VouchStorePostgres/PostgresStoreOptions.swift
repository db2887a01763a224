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

    static let poolSizeRange = 1...1000
    static let timeoutSecondsRange: ClosedRange<Int64> = 1...300

    public func validate() throws(ConfigurationError) {
        try ConfigurationError.check(poolSize, in: Self.poolSizeRange, "poolSize")
        let seconds = Self.timeoutSecondsRange
        guard (.seconds(seconds.lowerBound) ... .seconds(seconds.upperBound)).contains(timeout) else {
            throw ConfigurationError(field: "timeout", accepted: "\(seconds.lowerBound)…\(seconds.upperBound) seconds")
        }
    }

    public init(poolSize: Int = 10, timeout: Duration = .seconds(5)) {
        self.poolSize = poolSize
        self.timeout = timeout
    }

    var timeoutMilliseconds: Int64 {
        let (seconds, attoseconds) = timeout.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
