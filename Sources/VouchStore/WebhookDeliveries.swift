import Foundation

/// One event owed to one endpoint: queued in the transaction that wrote the event, one per
/// endpoint that subscribed to its kind then, and worked through by the delivery worker until it
/// is delivered or given up.
///
/// Times here are Unix milliseconds: retries of a failing receiver are spaced by less than a
/// second at first.
public struct WebhookDelivery: Sendable, Equatable {
    public var endpointID: UUID
    public var event: SecurityEventRecord
    public var state: WebhookDeliveryState
    /// Attempts made so far.
    public var attempts: Int
    /// When a pending delivery is next due.
    public var nextAttemptAt: Int64
    public var lastAttemptAt: Int64?
    /// The last attempt's outcome in one line ("HTTP 500", "timed out waiting for the answer"),
    /// for the endpoint's owner.
    public var lastOutcome: String?
    public var deliveredAt: Int64?

    public init(
        endpointID: UUID, event: SecurityEventRecord, state: WebhookDeliveryState, attempts: Int, nextAttemptAt: Int64,
        lastAttemptAt: Int64? = nil, lastOutcome: String? = nil, deliveredAt: Int64? = nil
    ) {
        self.endpointID = endpointID
        self.event = event
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastOutcome = lastOutcome
        self.deliveredAt = deliveredAt
    }
}

public enum WebhookDeliveryState: String, Sendable, CaseIterable {
    /// Owed: due at `nextAttemptAt`, after the user's earlier pending events to the same endpoint.
    case pending
    /// The receiver answered 2xx.
    case delivered
    /// Retried until its deadline and given up; the endpoint was paused. A replay makes it pending.
    case failed
}

/// A delivery the worker took: leased to it until `leaseUntil`, so that no other worker (another
/// instance) takes it meanwhile, and taken again by anyone once the lease runs out, which is how
/// a delivery survives a worker that died mid-attempt.
public struct ClaimedWebhookDelivery: Sendable, Equatable {
    public var delivery: WebhookDelivery
    public var url: String
    /// The endpoint's signing secret (never logged).
    public var secret: String
    public var leaseUntil: Int64

    public init(delivery: WebhookDelivery, url: String, secret: String, leaseUntil: Int64) {
        self.delivery = delivery
        self.url = url
        self.secret = secret
        self.leaseUntil = leaseUntil
    }
}

extension ClaimedWebhookDelivery: CustomStringConvertible {
    public var description: String {
        "ClaimedWebhookDelivery(endpoint: \(delivery.endpointID), event: \(delivery.event.id), url: \(url), secret: <redacted>)"
    }
}

/// What one attempt came to, for `Store.finishWebhookAttempt`.
public struct WebhookAttempt: Sendable, Equatable {
    public enum Verdict: Sendable, Equatable {
        /// 2xx: the delivery is done.
        case delivered
        /// Try again at this time (Unix milliseconds).
        case retry(at: Int64)
        /// Past its deadline: the delivery fails and the endpoint is paused with `pauseReason`.
        case giveUp(pauseReason: String)
    }

    public var endpointID: UUID
    public var eventID: UUID
    public var verdict: Verdict
    /// One line for the owner ("HTTP 500", "refused: …").
    public var outcome: String
    /// Unix milliseconds of the attempt.
    public var at: Int64

    public init(endpointID: UUID, eventID: UUID, verdict: Verdict, outcome: String, at: Int64) {
        self.endpointID = endpointID
        self.eventID = eventID
        self.verdict = verdict
        self.outcome = outcome
        self.at = at
    }
}
