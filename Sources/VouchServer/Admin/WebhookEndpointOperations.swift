import Foundation
import VouchProtocol
import VouchStore

/// Webhook endpoints (PROTOCOL §8.17) as the admin API makes and changes them: the URL is held to
/// the outbound policy (resolved and judged now, and again at each delivery), the events to the
/// catalogue.
extension AdminOperations {
    /// The most endpoints one app may have: each delivery fans out to every one of them.
    static let maximumWebhookEndpoints = 20

    /// A new endpoint of the app `appID` (which the caller has found), with a fresh secret: the
    /// text returned here is the one time it is shown.
    func createWebhookEndpoint(
        appID: UUID, url: String, events: [String], policy: OutboundPolicy
    ) async throws -> (record: WebhookEndpointRecord, secret: String) {
        let url = try await Self.checkedWebhookURL(url, policy: policy)
        let events = try Self.webhookEvents(events)
        let secret = WebhookSecretText.make()
        let record = WebhookEndpointRecord(id: UUID(), appID: appID, url: url, events: events, secret: secret, createdAt: clock())
        do {
            try await store.createWebhookEndpoint(record, limit: Self.maximumWebhookEndpoints)
        } catch StoreError.limitReached {
            throw APIError(.conflict, "An app has at most \(Self.maximumWebhookEndpoints) webhook endpoints; delete one first.")
        }
        AuditNote.object("webhook", record.id.lowercased)
        return (record, secret)
    }

    /// Changes what `request` names; `paused: true` pauses as an operator, `false` resumes. 404
    /// for an unknown id and for another app's.
    func updateWebhookEndpoint(
        id: UUID, appID: UUID, request: UpdateWebhookEndpointRequest, policy: OutboundPolicy
    ) async throws -> WebhookEndpointRecord {
        var change = WebhookEndpointChange(resume: request.paused == false)
        if let url = request.url { change.url = try await Self.checkedWebhookURL(url, policy: policy) }
        if let events = request.events { change.events = try Self.webhookEvents(events) }
        do {
            var updated = try await store.updateWebhookEndpoint(id: id, appID: appID, change: change, now: clock())
            if request.paused == true {
                updated = try await store.pauseWebhookEndpoint(id: id, appID: appID, reason: "paused by an operator", now: clock())
            }
            return updated
        } catch StoreError.notFound {
            throw APIError.notFound("Webhook endpoint")
        }
    }

    func webhookDeliveries(endpointID: UUID, appID: UUID, limit: Int) async throws -> [WebhookDelivery] {
        do {
            return try await store.webhookDeliveries(endpointID: endpointID, appID: appID, limit: limit)
        } catch StoreError.notFound {
            throw APIError.notFound("Webhook endpoint")
        }
    }

    /// Sends the event again, with its id, as soon as the worker claims it (after the user's
    /// earlier pending events to the endpoint, and once the endpoint is not paused). Due by the
    /// machine's clock, which the delivery worker reads.
    func replayWebhookDelivery(endpointID: UUID, appID: UUID, eventID: UUID) async throws -> WebhookDelivery {
        do {
            return try await store.replayWebhookDelivery(
                endpointID: endpointID, appID: appID, eventID: eventID, now: Int64(Date().timeIntervalSince1970 * 1_000))
        } catch StoreError.notFound {
            throw APIError.notFound("Delivery")
        }
    }

    func deleteWebhookEndpoint(id: UUID, appID: UUID) async throws {
        do {
            try await store.deleteWebhookEndpoint(id: id, appID: appID)
        } catch StoreError.notFound {
            throw APIError.notFound("Webhook endpoint")
        }
    }

    /// The URL as given, once the policy found it reachable (a refusal says what to change).
    static func checkedWebhookURL(_ url: String, policy: OutboundPolicy) async throws -> String {
        do {
            _ = try await policy.destination(url)
            return url
        } catch {
            throw APIError.invalidProperty("url", error.explanation)
        }
    }

    /// At least one kind of the catalogue, each once, in the order given.
    static func webhookEvents(_ events: [String]) throws -> [String] {
        let known = SecurityEventKind.allCases.map(\.rawValue)
        guard !events.isEmpty, Set(events).count == events.count, events.allSatisfy(known.contains) else {
            throw APIError.invalidProperty(
                "events", "`events` must list at least one event kind, each once, of: \(known.joined(separator: ", ")).")
        }
        return events
    }
}
