import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/providers`: create and show providers, bind and unbind apps (PROTOCOL §4).
struct AdminProviderRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/providers", use: create)
        routes.get("/providers/:provider") { _, context in
            let id = try PathID.uuid(context, "provider", what: "Provider")
            guard let provider = try await store.provider(id: id) else { throw APIError.notFound("Provider") }
            return JSONResponse.make(provider.response)
        }
        routes.put("/providers/:provider/apps/:app") { _, context in try await bind(context, bound: true) }
        routes.delete("/providers/:provider/apps/:app") { _, context in try await bind(context, bound: false) }
        return routes
    }

    private func create(_ request: Request, _ context: AdminContext) async throws -> Response {
        let body = try await RequestBodyReader.decode(CreateProviderRequest.self, from: request, context: context)
        guard let name = body.name else { throw APIError.missingProperty("name") }
        let provider = ProviderRecord(id: UUID(), name: try AdminValidation.name(name), appIDs: [], createdAt: clock())
        try await store.createProvider(provider)
        AuditNote.object("provider", provider.id.lowercased)
        return JSONResponse.make(provider.response, status: .created)
    }

    private func bind(_ context: AdminContext, bound: Bool) async throws -> Response {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        let appID = try PathID.uuid(context, "app", what: "App")
        try await AdminOperations(store: store, clock: clock).setBinding(provider: providerID, app: appID, bound: bound)
        return JSONResponse.noContent()
    }
}
