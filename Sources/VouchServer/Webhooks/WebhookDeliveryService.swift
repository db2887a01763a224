import Foundation
import Logging
import ServiceLifecycle
import VouchStore

/// Sends the deliveries the outbox owes (PROTOCOL §8.17): claims what is due, at most
/// `concurrentAttempts` at once, posts each signed event to its endpoint under the outbound rules
/// (resolved and checked again at every attempt), and records the outcome: delivered, due again
/// after a backoff with jitter, or given up after the retry window with the endpoint paused.
///
/// Nothing is lost to a crash: a delivery is recorded only after its attempt, and one whose
/// worker died is claimed again once its lease runs out (at least once; the event's id makes a
/// repeat harmless). Several instances share the work through the store's claims.
struct WebhookDeliveryService: Service, CustomStringConvertible {
    let store: any Store
    let outbound: OutboundPolicy
    let client: OutboundHTTPClient
    let settings: WebhookDeliverySettings
    let logger: Logger
    var metrics: ServerMetrics?
    /// Unix milliseconds: the deliveries' times.
    var milliseconds: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1_000) }
    /// In 0..<1: the part of a retry delay taken off (`WebhookRetrySchedule`).
    var jitter: @Sendable () -> Double = { Double.random(in: 0..<1) }

    var description: String { "WebhookDeliveryService(\(settings))" }

    static let eventIDHeader = "Vouch-Event-Id"
    static let eventTypeHeader = "Vouch-Event-Type"

    func run() async throws {
        let wake = DeliveryWake()
        try? await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                // Said once when claims start failing (a store outage) and once when they work
                // again, not at every poll.
                var claimsFailing = false
                // Claims in a row that found nothing: an idle worker looks less often, up to once
                // a second, so that an instance with nothing owed costs next to nothing.
                var emptyClaims = 0
                while !Task.isCancelled {
                    let free = settings.concurrentAttempts - wake.attemptsUnderWay
                    var claimed: [ClaimedWebhookDelivery] = []
                    // A claim is a write: under load it waits for a quarter of the slots to free
                    // rather than claiming one delivery per finished attempt.
                    if free >= max(1, settings.concurrentAttempts / 4) || (free > 0 && wake.attemptsUnderWay == 0) {
                        do {
                            claimed = try await store.claimWebhookDeliveries(
                                now: milliseconds(), lease: WebhookDeliverySettings.lease.milliseconds, limit: free)
                            if claimsFailing { logger.info("claiming webhook deliveries works again") }
                            claimsFailing = false
                        } catch {
                            if !claimsFailing {
                                logger.warning(
                                    "claiming webhook deliveries failed; retrying every poll",
                                    metadata: ["error_type": "\(type(of: error))"])
                            }
                            claimsFailing = true
                        }
                    }
                    for delivery in claimed {
                        wake.attemptStarted()
                        group.addTask {
                            await attempt(delivery)
                            wake.attemptFinished()
                        }
                    }
                    // A full claim may have left more due: claim again at once, or as soon as a
                    // slot frees.
                    emptyClaims = claimed.isEmpty && wake.attemptsUnderWay == 0 ? min(emptyClaims + 1, 8) : 0
                    if claimed.isEmpty || claimed.count < free || settings.concurrentAttempts - wake.attemptsUnderWay == 0 {
                        await wake.wait(timeout: Self.idleWait(settings.pollInterval, emptyClaims: emptyClaims))
                    }
                }
            }
        }
    }

    /// One attempt of one delivery, recorded. A failure to record it leaves the lease to run out,
    /// after which the delivery is attempted again.
    func attempt(_ claimed: ClaimedWebhookDelivery) async {
        let delivery = claimed.delivery
        let event = delivery.event
        let (delivered, outcome) = await send(claimed)
        let now = milliseconds()
        let verdict: WebhookAttempt.Verdict
        if delivered {
            verdict = .delivered
        } else {
            let schedule = WebhookRetrySchedule(settings: settings)
            switch schedule.verdict(afterFailures: delivery.attempts + 1, now: now, eventAt: event.at * 1_000, jitter: jitter()) {
            case .retry(let at): verdict = .retry(at: at)
            case .giveUp:
                verdict = .giveUp(
                    pauseReason: "deliveries failed for \(Self.text(settings.retryWindow)); the last attempt: \(outcome)")
            }
        }
        metrics?.webhookAttempted(verdict)
        logger.log(
            level: delivered ? .debug : .info, delivered ? "webhook delivered" : "webhook delivery failed",
            metadata: [
                "endpoint_id": "\(delivery.endpointID.uuidString.lowercased())",
                "event_id": "\(event.id.uuidString.lowercased())", "event_type": "\(event.kind.rawValue)",
                "attempt": "\(delivery.attempts + 1)", "outcome": "\(outcome)",
            ])
        do {
            try await store.finishWebhookAttempt(
                WebhookAttempt(endpointID: delivery.endpointID, eventID: event.id, verdict: verdict, outcome: outcome, at: now))
        } catch {
            logger.warning("recording a webhook attempt failed; it will be attempted again", metadata: ["error_type": "\(type(of: error))"])
        }
    }

    /// Posts the event: whether the endpoint answered 2xx, and the outcome in one line.
    private func send(_ claimed: ClaimedWebhookDelivery) async -> (delivered: Bool, outcome: String) {
        let event = claimed.delivery.event
        let destination: OutboundDestination
        do {
            destination = try await outbound.destination(claimed.url)
        } catch {
            return (false, "refused: \(error.explanation)")
        }
        let body = SecurityEventBody.json(event)
        let signature = WebhookSignature.header(body: body, secret: claimed.secret, timestamp: milliseconds() / 1_000)
        let headers = [
            (Self.eventIDHeader, event.id.uuidString.lowercased()), (Self.eventTypeHeader, event.kind.rawValue),
            (WebhookSignature.headerName, signature),
        ]
        switch await client.post(body, to: destination, headers: headers) {
        case .answered(let status, _): return ((200..<300).contains(status), "HTTP \(status)")
        case .failed(let failure): return (false, failure.explanation)
        }
    }

    /// The poll interval, doubled for each empty claim after the first two, at most a second (or
    /// the interval, when that is longer).
    static func idleWait(_ interval: Duration, emptyClaims: Int) -> Duration {
        let grown = interval * (1 << max(0, min(emptyClaims, 8) - 2))
        return min(grown, max(interval, .seconds(1)))
    }

    /// "24 h", "90 s", "250 ms": a duration as an owner reads it.
    static func text(_ duration: Duration) -> String {
        let milliseconds = duration.milliseconds
        if milliseconds % 3_600_000 == 0 { return "\(milliseconds / 3_600_000) h" }
        if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000) s" }
        return "\(milliseconds) ms"
    }
}
