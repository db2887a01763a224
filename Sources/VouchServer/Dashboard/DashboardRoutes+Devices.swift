import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// A user's devices on the user page: each live session with what its client said about the
/// device, and signing one of them out (an operator's revocation: the device signs in again).
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var devicesArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/sessions/:session/revoke", method: .post) { request, context in try await revokeDevice(request, context) }
        return routes
    }

    /// The user's live sessions, oldest first, as the user page's rows.
    func devices(appID: UUID, userID: String) async throws -> [[String: Any]] {
        try await store.liveSessions(appID: appID, userID: userID, now: clock()).map { found in
            let session = found.session
            return [
                "sessionID": session.sessionID.lowercased, "name": session.device?.name ?? "Unnamed device",
                "platform": session.device?.platform ?? "—", "appVersion": session.device?.appVersion ?? "—",
                "createdAt": Timestamp.rfc3339(session.createdAt), "lastSeenAt": Timestamp.rfc3339(session.lastSeenAt),
            ]
        }
    }

    private func revokeDevice(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let form = try await DashboardForm.read(request)
        return try await attempt(
            {
                let sessionID = try Self.uuid(context, "session", what: "Session")
                let now = clock()
                guard let found = try await store.endSession(sessionID: sessionID, owner: nil, reason: .revoked, now: now) else {
                    throw DashboardError(.notFound, "That session was not found.")
                }
                let session = found.session
                AuditNote.app(session.appID)
                let device = session.device?.name.map { "“\($0)”" } ?? "the device"
                await notice(
                    found.standing(at: now).isLive
                        ? "Signed out \(device) of \(session.userID): it must sign in again."
                        : "That session of \(session.userID) had already ended.", context)
                return DashboardResponse.redirect(to: Self.userPage(appID: session.appID, userID: session.userID))
            }, orShow: { try await usersPage(context, app: form["app"], user: form["user"], error: $0) })
    }
}
