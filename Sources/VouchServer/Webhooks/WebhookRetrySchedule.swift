/// When a failed delivery is tried again: a verdict computed from the attempt count, the event's
/// age and a random draw, so that the rule is a value a test can hold to the documented numbers.
struct WebhookRetrySchedule: Sendable {
    let settings: WebhookDeliverySettings

    /// The wait before attempt `attempts + 1`, after `attempts` failures: the first delay times
    /// 4^(attempts-1), capped, less a random part of up to a quarter (`jitter` in 0..<1).
    func delay(afterFailures attempts: Int, jitter: Double) -> Duration {
        let first = Double(settings.firstRetryDelay.milliseconds)
        let longest = Double(settings.longestRetryDelay.milliseconds)
        var grown = first
        for _ in 1..<max(1, min(attempts, 32)) where grown < longest { grown *= 4 }
        let capped = min(grown, longest)
        return .milliseconds(Int64(capped * (1 - 0.25 * min(max(jitter, 0), 1))))
    }

    /// The verdict after the `attempts`-th failure at `now` (Unix ms) of an event written at
    /// `eventAt` (Unix ms): try again when that is still within the retry window, else give up.
    func verdict(afterFailures attempts: Int, now: Int64, eventAt: Int64, jitter: Double) -> RetryVerdict {
        let next = now + delay(afterFailures: attempts, jitter: jitter).milliseconds
        return next <= eventAt + settings.retryWindow.milliseconds ? .retry(at: next) : .giveUp
    }

    enum RetryVerdict: Equatable {
        case retry(at: Int64)
        case giveUp
    }
}

extension Duration {
    /// Whole milliseconds (truncated).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
