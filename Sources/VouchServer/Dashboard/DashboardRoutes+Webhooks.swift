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
