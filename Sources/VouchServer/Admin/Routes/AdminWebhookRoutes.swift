import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/apps/:app/webhooks` (PROTOCOL §8.17): where an app's backend receives security events.
/// Made (the secret shown once), listed, read, changed, paused and resumed, deleted.
struct AdminWebhookRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64
    let policy: OutboundPolicy

    private var operations: AdminOperations { AdminOperations(store: store, clock: clock) }

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/apps/:app/webhooks") { request, context in try await create(request, context) }
        routes.get("/apps/:app/webhooks") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            return JSONResponse.make(WebhookEndpointList(webhooks: try await store.webhookEndpoints(appID: app.id).map { $0.response() }))
        }
        routes.get("/apps/:app/webhooks/:webhook") { _, context in
            let (app, id) = try await target(context)
            guard let endpoint = try await store.webhookEndpoints(appID: app).first(where: { $0.id == id }) else {
                throw APIError.notFound("Webhook endpoint")
            }
            return JSONResponse.make(endpoint.response())
        }
        routes.patch("/apps/:app/webhooks/:webhook") { request, context in
            let (app, id) = try await target(context)
            let body = try await RequestBodyReader.decode(UpdateWebhookEndpointRequest.self, from: request, context: context)
            return JSONResponse.make(
                try await operations.updateWebhookEndpoint(id: id, appID: app, request: body, policy: policy).response())
        }
        routes.get("/apps/:app/webhooks/:webhook/deliveries") { request, context in
            let (app, id) = try await target(context)
            let limit = try Self.limit(request)
            return JSONResponse.make(
                WebhookDeliveryList(deliveries: try await operations.webhookDeliveries(endpointID: id, appID: app, limit: limit).map(\.response)))
        }
        routes.post("/apps/:app/webhooks/:webhook/deliveries/:event/replay") { _, context in
            let (app, id) = try await target(context)
            let event = try PathID.uuid(context, "event", what: "Delivery")
            return JSONResponse.make(try await operations.replayWebhookDelivery(endpointID: id, appID: app, eventID: event).response)
        }
        routes.delete("/apps/:app/webhooks/:webhook") { _, context in
            let (app, id) = try await target(context)
            try await operations.deleteWebhookEndpoint(id: id, appID: app)
            return JSONResponse.noContent()
        }
        return routes
    }

    private func create(_ request: Request, _ context: AdminContext) async throws -> Response {
        let app = try await AdminLookup.app(context, in: store)
        let body = try await RequestBodyReader.decode(CreateWebhookEndpointRequest.self, from: request, context: context)
        guard let url = body.url else { throw APIError.missingProperty("url") }
        guard let events = body.events else { throw APIError.missingProperty("events") }
        let (record, secret) = try await operations.createWebhookEndpoint(appID: app.id, url: url, events: events, policy: policy)
        return JSONResponse.make(record.response(secret: secret), status: .created)
    }

    /// `?limit=` of the deliveries: 1…200, 50 when absent.
    static func limit(_ request: Request) throws -> Int {
        guard let text = request.uri.queryParameters["limit"] else { return 50 }
        guard let limit = Int(String(text)), (1...200).contains(limit) else {
            throw APIError.invalidProperty("limit", "`limit` must be 1…200.")
        }
        return limit
    }

    private func target(_ context: AdminContext) async throws -> (app: UUID, endpoint: UUID) {
        let app = try await AdminLookup.app(context, in: store)
        return (app.id, try PathID.uuid(context, "webhook", what: "Webhook endpoint"))
    }
}

/// `GET /admin/apps/<app>/webhooks`'s answer.
struct WebhookEndpointList: Encodable {
    let webhooks: [WebhookEndpointResponse]
}
