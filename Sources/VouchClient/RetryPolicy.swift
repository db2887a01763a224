import Foundation

/// How often and how patiently the client tries to answer a challenge or open a session.
///
/// Attempts are capped and spaced by exponential backoff with jitter, so that a fleet of clients
/// whose sessions were revoked at once does not come back as one wave (Firebase #15474), and an
/// offline device does not open connection after connection (Twilio #19).
public struct RetryPolicy: Sendable, Equatable {
    /// Sign-in attempts per challenge or call, the first included (at least 1).
    public var maximumAttempts: Int
    /// The wait before the second attempt; doubled for each further one.
    public var initialDelaySeconds: Double
    /// No wait is longer than this, `Retry-After` included.
    public var maximumDelaySeconds: Double

    public init(maximumAttempts: Int = 3, initialDelaySeconds: Double = 0.25, maximumDelaySeconds: Double = 8) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialDelaySeconds = max(0, initialDelaySeconds)
        self.maximumDelaySeconds = max(self.initialDelaySeconds, maximumDelaySeconds)
    }

    /// The wait before attempt `attempt` (1 = the second attempt): full backoff, then a random
    /// half of it dropped, and never less than a server's `Retry-After` (within the cap).
    func delay(beforeAttempt attempt: Int, retryAfterSeconds: Int? = nil) -> Double {
        let backoff = min(maximumDelaySeconds, initialDelaySeconds * pow(2, Double(max(0, attempt - 1))))
        let jittered = backoff * Double.random(in: 0.5...1.0)
        return min(maximumDelaySeconds, max(jittered, Double(retryAfterSeconds ?? 0)))
    }
}
