import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// `/admin/apps/:app/users/:user`: look a user up, suspend or unsuspend, revoke every session,
/// erase, export (PROTOCOL §4).
struct AdminUserRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64
    let data: UserDataOperations

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.get("/apps/:app/users/:user") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            guard let user = try await store.user(appID: app.id, userID: try PathID.userID(context)) else {
                throw APIError.notFound("User")
            }
            return try await status(user)
        }
        routes.patch("/apps/:app/users/:user", use: update)
        routes.delete("/apps/:app/users/:user") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            return JSONResponse.make(try await data.erase(appID: app.id, userID: try PathID.userID(context)))
        }
        routes.get("/apps/:app/users/:user/export") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            return JSONResponse.make(try await data.export(appID: app.id, userID: try PathID.userID(context)))
        }
        routes.delete("/apps/:app/users/:user/sessions") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            try await store.revokeSessions(appID: app.id, userID: try PathID.userID(context), now: clock())
            return JSONResponse.noContent()
        }
        return routes
    }

    private func update(_ request: Request, _ context: AdminContext) async throws -> Response {
        let app = try await AdminLookup.app(context, in: store)
        let userID = try PathID.userID(context)
        let body = try await RequestBodyReader.decode(UpdateUserRequest.self, from: request, context: context)
        guard let suspended = body.suspended else { throw APIError.missingProperty("suspended") }
        AuditNote.action(suspended ? "user.suspend" : "user.unsuspend")
        return try await status(try await store.setSuspended(appID: app.id, userID: userID, suspended: suspended, now: clock()))
    }

    private func status(_ user: UserRecord) async throws -> Response {
        let active = try await store.activeSessionCount(appID: user.appID, userID: user.userID, now: clock())
        return JSONResponse.make(UserStatusResponse(user: user.identity, suspended: user.suspended, activeSessions: active))
    }
}
