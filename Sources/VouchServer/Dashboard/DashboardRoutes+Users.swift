import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// Users of an app: look up by user id, suspend or unsuspend, revoke every session, download
/// everything held about them, erase them.
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var usersArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/users", method: .get) { request, context in
            let query = request.uri.queryParameters
            return try await usersPage(context, app: query.get("app"), user: query.get("user"))
        }
        routes.on("/dashboard/users/suspension", method: .post) { request, context in try await changeUser(request, context, revoke: false) }
        routes.on("/dashboard/users/revoke-sessions", method: .post) { request, context in try await changeUser(request, context, revoke: true) }
        routes.on("/dashboard/users/erase", method: .post) { request, context in try await eraseUser(request, context) }
        routes.on("/dashboard/users/export", method: .get) { request, context in try await exportUser(request, context) }
        return routes
    }

    func usersPage(
        _ context: DashboardContext, app appText: String?, user: String?,
        error: DashboardError? = nil
    ) async throws -> Response {
        let appID = appText.flatMap { LayerID.parseApp($0) }
        var failure = error
        var values: [String: Any] = [:]
        if let appID, let user, !user.isEmpty {
            do {
                values["result"] = try await userSummary(appID: appID, userID: try Self.userID(user))
            } catch {
                failure = failure ?? DashboardError.from(error)
            }
        }
        let chrome = try await chrome(context, "users", error: failure?.message)
        values["apps"] = try await appOptions(selected: appID)
        values["userID"] = user ?? ""
        values["csrf"] = chrome.csrfToken
        return renderer.page("users", title: "Users", values: values, chrome: chrome, status: failure?.status ?? .ok)
    }

    private func userSummary(appID: UUID, userID: String) async throws -> [String: Any] {
        guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
        let user = try await store.user(appID: appID, userID: userID)
        // Live by every rule (cutoffs included), as the admin API lists them.
        let devices = try await devices(appID: appID, userID: userID)
        var summary: [String: Any] = [
            "userID": userID, "appUUID": appID.lowercased, "known": user != nil,
            "userQuery": userID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "",
            "suspended": user?.suspended ?? false, "activeSessions": devices.count, "devices": devices,
        ]
        if let name = user?.profile.displayName {
            summary["displayName"] = name
            summary["hasDisplayName"] = true
        }
        return summary
    }

    private func changeUser(_ request: Request, _ context: DashboardContext, revoke: Bool) async throws -> Response {
        let form = try await DashboardForm.read(request)
        return try await attempt(
            {
                let appID = try Self.uuid(form["app"], what: "App")
                let userID = try Self.userID(form["user"] ?? "")
                AuditNote.app(appID)
                AuditNote.object("user", userID)
                do {
                    if revoke {
                        let count = try await store.revokeSessions(appID: appID, userID: userID, now: clock())
                        await notice("Revoked \(count) session(s) of \(userID).", context)
                    } else {
                        let suspended = form["suspended"] == "true"
                        AuditNote.action(suspended ? "user.suspend" : "user.unsuspend")
                        _ = try await store.setSuspended(appID: appID, userID: userID, suspended: suspended, now: clock())
                        await notice(suspended ? "Suspended \(userID); their sessions ended." : "Unsuspended \(userID).", context)
                    }
                } catch StoreError.notFound {
                    throw DashboardError(.notFound, "App not found.")
                }
                return DashboardResponse.redirect(to: Self.userPage(appID: appID, userID: userID))
            }, orShow: { try await usersPage(context, app: form["app"], user: form["user"], error: $0) })
    }

    /// Erases the user once "I am sure" is ticked, then shows the app's empty look-up form: the
    /// user is gone.
    private func eraseUser(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let form = try await DashboardForm.read(request)
        return try await attempt(
            {
                let appID = try Self.uuid(form["app"], what: "App")
                let userID = try Self.userID(form["user"] ?? "")
                AuditNote.app(appID)
                guard form["confirm"] == "yes" else {
                    throw DashboardError(.unprocessableContent, "Tick “I am sure” to delete a user: erasure cannot be undone.")
                }
                guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
                let erased = try await userData.erase(appID: appID, userID: userID)
                await notice(
                    "Deleted \(userID): \(erased.sessionsEnded) live session(s) ended, \(erased.sessionsForgotten) forgotten; "
                        + "the audit log now calls them \(erased.pseudonym).", context)
                return DashboardResponse.redirect(to: "/dashboard/users?app=\(appID.lowercased)")
            }, orShow: { try await usersPage(context, app: form["app"], user: form["user"], error: $0) })
    }

    /// The export as a JSON file to save.
    private func exportUser(_ request: Request, _ context: DashboardContext) async throws -> Response {
        let query = request.uri.queryParameters
        return try await attempt(
            {
                let appID = try Self.uuid(query.get("app"), what: "App")
                let userID = try Self.userID(query.get("user") ?? "")
                guard try await store.app(id: appID) != nil else { throw DashboardError(.notFound, "App not found.") }
                var response = JSONResponse.make(try await userData.export(appID: appID, userID: userID))
                response.headers[.contentDisposition] = "attachment; filename=\"vouch-user-export.json\""
                return response
            }, orShow: { try await usersPage(context, app: query.get("app"), user: query.get("user"), error: $0) })
    }

    /// The user page of `userID` in `appID`.
    static func userPage(appID: UUID, userID: String) -> String {
        let user = userID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "/dashboard/users?app=\(appID.lowercased)&user=\(user)"
    }

    static func userID(_ text: String) throws -> String {
        guard (1...255).contains(text.utf8.count) else {
            throw DashboardError(.unprocessableContent, "A user id is 1 … 255 bytes.")
        }
        return text
    }
}
