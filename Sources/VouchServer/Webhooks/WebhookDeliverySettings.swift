import VouchStore

/// How webhook deliveries are paced (PROTOCOL §8.17): when a failed attempt is tried again, for
/// how long, and how many attempts run at once.
public struct WebhookDeliverySettings: Sendable, Equatable, CustomStringConvertible {
    /// The wait after the first failure; each later wait is four times the last (up to
    /// `longestRetryDelay`), then shortened by a random part of up to a quarter, so that the
    /// deliveries a receiver's outage failed together do not all come back at once.
    public var firstRetryDelay: Duration = .seconds(5)
    public var longestRetryDelay: Duration = .seconds(3_600)
    /// How long after its event a delivery is retried; past it the delivery fails and its
    /// endpoint is paused, with the last failure as the reason its owner sees.
    public var retryWindow: Duration = .seconds(86_400)
    /// How often an idle worker looks for due deliveries.
    public var pollInterval: Duration = .milliseconds(250)
    /// Attempts under way at once per instance: a receiver that never answers holds one of them
    /// for at most `OutboundHTTPClient`'s bounds, and the others go on.
    public var concurrentAttempts = 128

    public init() {}

    /// Longer than any attempt can take (resolution 5 s, connection 5 s, exchange 10 s): another
    /// worker takes a delivery again only once its attempt is surely over, or its worker died.
    static let lease: Duration = .seconds(30)

    static let concurrentAttemptsRange = 1...1_024
    static let firstRetryDelayRange: ClosedRange<Duration> = .milliseconds(10)...(.seconds(3_600))

    func validate() throws(ConfigurationError) {
        try ConfigurationError.check(concurrentAttempts, in: Self.concurrentAttemptsRange, "webhookDeliveries.concurrentAttempts")
        guard Self.firstRetryDelayRange.contains(firstRetryDelay), longestRetryDelay >= firstRetryDelay,
            retryWindow >= firstRetryDelay, pollInterval >= .milliseconds(10), pollInterval <= .seconds(60)
        else {
            throw ConfigurationError(
                field: "webhookDeliveries",
                accepted: "a first retry delay of 0.01 to 3600 seconds (with a longest delay and a retry window at least as long, "
                    + "and a poll interval of 10 ms to 60 s)")
        }
    }

    public var description: String {
        "WebhookDeliverySettings(firstRetryDelay: \(firstRetryDelay), longestRetryDelay: \(longestRetryDelay), "
            + "retryWindow: \(retryWindow), pollInterval: \(pollInterval), concurrentAttempts: \(concurrentAttempts))"
    }
}
