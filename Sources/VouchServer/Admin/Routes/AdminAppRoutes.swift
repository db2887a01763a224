import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/apps`: create, list, show and update apps (PROTOCOL §4).
struct AdminAppRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.post("/apps", use: create)
        routes.get("/apps") { _, _ in JSONResponse.make(try await store.apps().map(\.response)) }
        routes.get("/apps/:app") { _, context in JSONResponse.make(try await AdminLookup.app(context, in: store).response) }
        routes.patch("/apps/:app", use: update)
        return routes
    }

    private func create(_ request: Request, _ context: AdminContext) async throws -> Response {
        let body = try await RequestBodyReader.decode(CreateAppRequest.self, from: request, context: context)
        guard let name = body.name else { throw APIError.missingProperty("name") }
        let app = AppRecord(
            id: UUID(), name: try AdminValidation.name(name),
            sessionTTLSeconds: try AdminValidation.ttl(body.sessionTTLSeconds ?? AdminAPI.defaultSessionTTL),
            createdAt: clock(),
            challengeMarginSeconds: try AdminValidation.challengeMargin(
                body.challengeMarginSeconds ?? AppRecord.defaultChallengeMarginSeconds),
            accessTokenTTLSeconds: try AdminValidation.accessTokenTTL(
                body.accessTokenTTLSeconds ?? AppRecord.defaultAccessTokenTTLSeconds),
            audiences: try AdminValidation.audiences(body.audiences ?? []))
        try await store.createApp(app)
        AuditNote.created(app: app.id)
        return JSONResponse.make(app.response, status: .created)
    }

    private func update(_ request: Request, _ context: AdminContext) async throws -> Response {
        let id = try PathID.uuid(context, "app", what: "App")
        let body = try await RequestBodyReader.decode(UpdateAppRequest.self, from: request, context: context)
        let name = try body.name.map { try AdminValidation.name($0) }
        let ttl = try body.sessionTTLSeconds.map { try AdminValidation.ttl($0) }
        let margin = try body.challengeMarginSeconds.map { try AdminValidation.challengeMargin($0) }
        let accessTTL = try body.accessTokenTTLSeconds.map { try AdminValidation.accessTokenTTL($0) }
        let audiences = try body.audiences.map { try AdminValidation.audiences($0) }
        do {
            // Partial in the store: a concurrent PATCH of another field is not overwritten.
            let changes = AppChanges(
                name: name, sessionTTLSeconds: ttl, challengeMarginSeconds: margin, accessTokenTTLSeconds: accessTTL,
                audiences: audiences)
            return JSONResponse.make(try await store.updateApp(id: id, changes: changes).response)
        } catch StoreError.notFound {
            throw APIError.notFound("App")
        }
    }
}
