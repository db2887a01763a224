import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/providers`: create, show and change providers, bind and unbind apps (PROTOCOL §4), and
/// their key sources (§8.18).
struct AdminProviderRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64
    let policy: OutboundPolicy
    let keySets: ProviderKeySets
    /// Written before the key list answers, so that it counts every sign-in made so far.
    let sourceKeyUses: SourceKeyUseCounter

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/providers", use: create)
        routes.get("/providers/:provider") { _, context in
            let id = try PathID.uuid(context, "provider", what: "Provider")
            guard let provider = try await store.provider(id: id) else { throw APIError.notFound("Provider") }
            return JSONResponse.make(provider.response)
        }
        routes.patch("/providers/:provider") { request, context in
            let id = try PathID.uuid(context, "provider", what: "Provider")
            let body = try await RequestBodyReader.decode(UpdateProviderRequest.self, from: request, context: context)
            let provider = try await operations.updateProvider(id: id, body, policy: policy)
            return JSONResponse.make(provider.response)
        }
        routes.get("/providers/:provider/key-source") { _, context in
            let id = try PathID.uuid(context, "provider", what: "Provider")
            try await sourceKeyUses.flush(to: store)
            return JSONResponse.make(try await operations.keySourceStatus(providerID: id, graceSeconds: keySets.graceSeconds))
        }
        routes.post("/providers/:provider/key-source/refresh") { _, context in
            let id = try PathID.uuid(context, "provider", what: "Provider")
            guard let provider = try await store.provider(id: id) else { throw APIError.notFound("Provider") }
            guard provider.keySource != nil else { throw APIError.notFound("Key source") }
            await keySets.refreshNow(provider)
            return JSONResponse.make(try await operations.keySourceStatus(providerID: id, graceSeconds: keySets.graceSeconds))
        }
        routes.put("/providers/:provider/apps/:app") { _, context in try await bind(context, bound: true) }
        routes.delete("/providers/:provider/apps/:app") { _, context in try await bind(context, bound: false) }
        return routes
    }

    private var operations: AdminOperations { AdminOperations(store: store, clock: clock) }

    private func create(_ request: Request, _ context: AdminContext) async throws -> Response {
        let body = try await RequestBodyReader.decode(CreateProviderRequest.self, from: request, context: context)
        let provider = try await operations.createProvider(body, policy: policy)
        return JSONResponse.make(provider.response, status: .created)
    }

    private func bind(_ context: AdminContext, bound: Bool) async throws -> Response {
        let providerID = try PathID.uuid(context, "provider", what: "Provider")
        let appID = try PathID.uuid(context, "app", what: "App")
        try await AdminOperations(store: store, clock: clock).setBinding(provider: providerID, app: appID, bound: bound)
        return JSONResponse.noContent()
    }
}
