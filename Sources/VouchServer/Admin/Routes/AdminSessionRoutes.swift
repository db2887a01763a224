import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// The operator's view of devices (PROTOCOL §8.14): a user's live sessions, and ending one by its
/// public id. An operator's ending is a revocation (`session_revoked`: the device signs in again),
/// not a user's sign-out.
struct AdminSessionRoutes {
    let store: any Store
    let clock: @Sendable () -> Int64

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.get("/apps/:app/users/:user/sessions") { _, context in
            let app = try await AdminLookup.app(context, in: store)
            let sessions = try await store.liveSessions(appID: app.id, userID: try PathID.userID(context), now: clock())
            return JSONResponse.make(SessionListResponse(sessions: sessions.map { $0.session.summary(current: false) }))
        }
        routes.delete("/sessions/:session") { _, context in
            let sessionID = try PathID.uuid(context, "session", what: "Session")
            guard let found = try await store.endSession(sessionID: sessionID, owner: nil, reason: .revoked, now: clock()) else {
                throw APIError.notFound("Session")
            }
            AuditNote.app(found.session.appID)
            return JSONResponse.noContent()
        }
        return routes
    }
}
