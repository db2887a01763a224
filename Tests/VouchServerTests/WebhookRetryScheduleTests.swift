import Testing

@testable import VouchServer

/// The retry rule as numbers: the documented waits, their jitter, the cap, and the end of the
/// retry window.
@Suite("Webhook retry schedule")
struct WebhookRetryScheduleTests {
    let schedule = WebhookRetrySchedule(settings: WebhookDeliverySettings())

    @Test("5 s, 20 s, 80 s, 320 s, 1280 s, then hourly, without jitter")
    func documentedWaits() {
        let waits = (1...8).map { schedule.delay(afterFailures: $0, jitter: 0) }
        #expect(waits == [.seconds(5), .seconds(20), .seconds(80), .seconds(320), .seconds(1_280), .seconds(3_600), .seconds(3_600), .seconds(3_600)])
        #expect(schedule.delay(afterFailures: 1_000, jitter: 0) == .seconds(3_600), "no overflow however many failures")
    }

    @Test("jitter takes off up to a quarter, never adds")
    func jitter() {
        #expect(schedule.delay(afterFailures: 2, jitter: 0.999) > .milliseconds(15_000))
        #expect(schedule.delay(afterFailures: 2, jitter: 0.5) == .milliseconds(17_500))
        #expect(schedule.delay(afterFailures: 2, jitter: 7) == .milliseconds(15_000), "out-of-range draws are clamped")
    }

    @Test("retried while the next attempt falls within 24 hours of the event, then given up")
    func window() {
        let eventAt: Int64 = 1_800_000_000_000
        #expect(schedule.verdict(afterFailures: 1, now: eventAt, eventAt: eventAt, jitter: 0) == .retry(at: eventAt + 5_000))
        let late = eventAt + 86_400_000 - 3_600_000
        #expect(schedule.verdict(afterFailures: 9, now: late, eventAt: eventAt, jitter: 0) == .retry(at: eventAt + 86_400_000))
        #expect(schedule.verdict(afterFailures: 9, now: late + 1, eventAt: eventAt, jitter: 0) == .giveUp)
    }

    @Test("the settings refuse a retry delay out of range or a window shorter than it")
    func settings() throws {
        var settings = WebhookDeliverySettings()
        try settings.validate()
        settings.firstRetryDelay = .zero
        #expect(throws: (any Error).self) { try settings.validate() }
        settings.firstRetryDelay = .seconds(10)
        settings.retryWindow = .seconds(5)
        #expect(throws: (any Error).self) { try settings.validate() }
    }
}

/// How often an idle delivery worker looks for due deliveries.
@Suite("Webhook worker's idle polling")
struct WebhookIdlePollingTests {
    @Test("the poll interval while claims find work, then doubling up to a second")
    func backoff() {
        let waits = (0...9).map { WebhookDeliveryService.idleWait(.milliseconds(250), emptyClaims: $0) }
        #expect(
            waits == [250, 250, 250, 500, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000].map { Duration.milliseconds($0) })
        #expect(WebhookDeliveryService.idleWait(.seconds(5), emptyClaims: 8) == .seconds(5), "a longer interval is kept")
        #expect(WebhookDeliveryService.idleWait(.milliseconds(20), emptyClaims: 8) == .milliseconds(1_000))
    }
}
