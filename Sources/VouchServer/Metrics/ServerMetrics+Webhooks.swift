import CoreMetrics
import VouchStore

/// `vouch_webhook_attempts_total{verdict}`: each attempt, by what it came to (`delivered`,
/// `retry`, `failed` for one given up).
extension ServerMetrics {
    static let webhookAttemptsLabel = "vouch_webhook_attempts_total"

    func webhookAttempted(_ verdict: WebhookAttempt.Verdict) {
        let name =
            switch verdict {
            case .delivered: "delivered"
            case .retry: "retry"
            case .giveUp: "failed"
            }
        Counter(label: Self.webhookAttemptsLabel, dimensions: [("verdict", name)], factory: factory).increment()
    }
}
