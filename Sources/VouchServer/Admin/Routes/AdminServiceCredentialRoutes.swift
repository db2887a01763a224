import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/apps/:app/service-credentials` (PROTOCOL §8.16): the credentials an app's services
/// introspect and follow the endings with. Made (shown once), listed, revoked.
struct AdminServiceCredentialRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64

    private var operations: AdminOperations { AdminOperations(store: store, clock: clock) }

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/apps/:app/service-credentials") { request, context in try await create(request, context) }
        routes.get("/apps/:app/service-credentials") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            return JSONResponse.make(
                ServiceCredentialList(serviceCredentials: try await store.serviceCredentials(appID: app.id).map { $0.response() }))
        }
        routes.delete("/apps/:app/service-credentials/:credential") { _, context in try await revoke(context) }
        return routes
    }

    private func create(_ request: Request, _ context: AdminContext) async throws -> Response {
        let app = try await AdminLookup.app(context, in: store)
        let body = try await RequestBodyReader.decode(CreateServiceCredentialRequest.self, from: request, context: context)
        guard let name = body.name else { throw APIError.missingProperty("name") }
        let (record, credential) = try await operations.createServiceCredential(appID: app.id, name: name)
        return JSONResponse.make(record.response(credential: credential), status: .created)
    }

    private func revoke(_ context: AdminContext) async throws -> Response {
        let app = try await AdminLookup.app(context, in: store)
        let id = try PathID.uuid(context, "credential", what: "Service credential")
        return JSONResponse.make(try await operations.revokeServiceCredential(id: id, appID: app.id).response())
    }
}

/// `GET /admin/apps/<app>/service-credentials`'s answer.
struct ServiceCredentialList: Encodable {
    let serviceCredentials: [ServiceCredentialResponse]

    enum CodingKeys: String, CodingKey {
        case serviceCredentials = "service_credentials"
    }
}
