import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// An app's webhook endpoints (PROTOCOL §8.17) on a page of their own: listed, made (the secret
/// shown on the answer to the form, once), paused, resumed, deleted, through the same operations
/// as the admin API.
extension DashboardRoutes {
    /// The page and its forms, added to the group that requires a dashboard session and its CSRF token.
    var webhooksArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/apps/:app/webhooks", method: .get) { _, context in
            try await webhooksPage(context, appID: try Self.uuid(context, "app", what: "App"))
        }
        routes.on("/dashboard/apps/:app/webhooks", method: .post) { request, context in try await createWebhook(request, context) }
        routes.on("/dashboard/apps/:app/webhooks/:webhook", method: .get) { _, context in
            try await deliveriesPage(
                context, appID: try Self.uuid(context, "app", what: "App"),
                endpointID: try Self.uuid(context, "webhook", what: "Webhook endpoint"))
        }
        routes.on("/dashboard/apps/:app/webhooks/:webhook/deliveries/:event/replay", method: .post) { _, context in
            try await replay(context)
        }
        for action in WebhookAction.allCases {
            routes.on("/dashboard/apps/:app/webhooks/:webhook/\(action.rawValue)", method: .post) { _, context in
                try await change(action, context)
            }
        }
        return routes
    }

    /// What the buttons of an endpoint's row do.
    enum WebhookAction: String, CaseIterable, Sendable {
        case pause, resume, delete
    }

    /// The page; with `created`, the endpoint just made and its secret, shown this once (answered
    /// 201, not redirected to, so that no later page can show it again).
    func webhooksPage(
        _ context: DashboardContext, appID: UUID, created: (record: WebhookEndpointRecord, secret: String)? = nil,
        error: DashboardError? = nil
    ) async throws -> Response {
        guard let app = try await store.app(id: appID) else { throw DashboardError(.notFound, "App not found.") }
        let chrome = try await chrome(context, "apps", error: error?.message)
        let endpoints: [[String: Any]] = try await store.webhookEndpoints(appID: app.id).map { endpoint in
            [
                "id": endpoint.id.lowercased, "url": endpoint.url, "events": endpoint.events.joined(separator: ", "),
                "createdAt": Timestamp.rfc3339(endpoint.createdAt), "paused": endpoint.isPaused,
                "pausedAt": endpoint.pausedAt.map(Timestamp.rfc3339) ?? "", "pauseReason": endpoint.pauseReason ?? "",
            ]
        }
        var values: [String: Any] = [
            "appName": app.name, "appID": LayerID.app(app.id), "appUUID": app.id.lowercased, "endpoints": endpoints,
            "csrf": chrome.csrfToken, "kinds": SecurityEventKind.allCases.map { ["kind": $0.rawValue] },
            "maximum": AdminOperations.maximumWebhookEndpoints,
        ]
        if let created {
            values["created"] = ["id": created.record.id.lowercased, "url": created.record.url, "secret": created.secret]
        }
        return renderer.page(
            "webhooks", title: "Webhooks", values: values, chrome: chrome, status: error?.status ?? (created == nil ? .ok : .created))
    }

    /// An endpoint's newest deliveries, each with its replay button.
    func deliveriesPage(_ context: DashboardContext, appID: UUID, endpointID: UUID, error: DashboardError? = nil) async throws -> Response {
        guard let app = try await store.app(id: appID),
            let endpoint = try await store.webhookEndpoints(appID: appID).first(where: { $0.id == endpointID })
        else { throw DashboardError(.notFound, "Webhook endpoint not found.") }
        let chrome = try await chrome(context, "apps", error: error?.message)
        let deliveries = try await operations.webhookDeliveries(endpointID: endpointID, appID: appID, limit: Self.deliveriesShown)
        let rows: [[String: Any]] = deliveries.map { delivery in
            let answer = delivery.response
            let when =
                switch delivery.state {
                case .pending: answer.nextAttemptAt.map { "next \($0)" }
                case .delivered: answer.deliveredAt
                case .failed: answer.lastAttemptAt.map { "gave up \($0)" }
                }
            return [
                "eventID": answer.eventID, "shortID": answer.eventID.prefix(8) + "…", "type": answer.eventType,
                "user": answer.userID.map { user in answer.sequence.map { "\(user) #\($0)" } ?? user } ?? "–",
                "time": answer.eventTime, "state": answer.state, "when": when ?? "", "attempts": answer.attempts,
                "outcome": answer.lastOutcome ?? "–", "endpointID": endpointID.lowercased,
            ]
        }
        let values: [String: Any] = [
            "appName": app.name, "appUUID": app.id.lowercased, "url": endpoint.url, "events": endpoint.events.joined(separator: ", "),
            "paused": endpoint.isPaused, "pausedAt": endpoint.pausedAt.map(Timestamp.rfc3339) ?? "",
            "pauseReason": endpoint.pauseReason ?? "", "deliveries": rows, "shown": Self.deliveriesShown, "csrf": chrome.csrfToken,
        ]
        return renderer.page("webhookDeliveries", title: "Webhook deliveries", values: values, chrome: chrome, status: error?.status ?? .ok)
    }

    /// How many deliveries the page lists.
    static let deliveriesShown = 50

    private func replay(_ context: DashboardContext) async throws -> Response {
        let appID = try Self.uuid(context, "app", what: "App")
        let endpointID = try Self.uuid(context, "webhook", what: "Webhook endpoint")
        return try await attempt(
            {
                let eventID = try Self.uuid(context, "event", what: "Delivery")
                let delivery = try await operations.replayWebhookDelivery(endpointID: endpointID, appID: appID, eventID: eventID)
                await notice("Event \(delivery.event.id.lowercased) will be sent again.", context)
                return DashboardResponse.redirect(to: "/dashboard/apps/\(appID.lowercased)/webhooks/\(endpointID.lowercased)")
            }, orShow: { try await deliveriesPage(context, appID: appID, endpointID: endpointID, error: $0) })
    }

    private func createWebhook(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let appID = try Self.uuid(context, "app", what: "App")
        return try await attempt(
            {
                let form = try await DashboardForm.read(request)
                guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
                // One checkbox a kind (`event_<kind>`): the form keeps the first value of a name.
                let events = SecurityEventKind.allCases.map(\.rawValue).filter { form["event_\($0)"] != nil }
                let created = try await operations.createWebhookEndpoint(
                    appID: appID, url: form.text("url") ?? "", events: events, policy: outbound)
                return try await webhooksPage(context, appID: appID, created: created)
            }, orShow: { try await webhooksPage(context, appID: appID, error: $0) })
    }

    private func change(_ action: WebhookAction, _ context: DashboardContext) async throws -> Response {
        let appID = try Self.uuid(context, "app", what: "App")
        return try await attempt(
            {
                let id = try Self.uuid(context, "webhook", what: "Webhook endpoint")
                guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
                switch action {
                case .pause, .resume:
                    let updated = try await operations.updateWebhookEndpoint(
                        id: id, appID: appID, request: UpdateWebhookEndpointRequest(paused: action == .pause), policy: outbound)
                    await notice("\(action == .pause ? "Paused" : "Resumed") the webhook to \(updated.url).", context)
                case .delete:
                    try await operations.deleteWebhookEndpoint(id: id, appID: appID)
                    await notice("Deleted webhook endpoint \(id.lowercased).", context)
                }
                return DashboardResponse.redirect(to: "/dashboard/apps/\(appID.lowercased)/webhooks")
            }, orShow: { try await webhooksPage(context, appID: appID, error: $0) })
    }
}
