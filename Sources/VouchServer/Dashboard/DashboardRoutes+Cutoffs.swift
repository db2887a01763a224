import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// Cutoffs of apps, providers and keys in two posts: the object page's form asks for the
/// confirmation page (`…/cutoff/review`, which changes nothing and counts the sessions a cutoff
/// would end), whose form makes the cutoff (`…/cutoff`) through the same `CutoffOperations` as
/// the admin API.
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var cutoffsArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        let scopes: [(path: String, target: @Sendable (DashboardContext) throws -> CutoffTarget)] = [
            ("/dashboard/apps/:app/cutoff", { .app(try Self.uuid($0, "app", what: "App")) }),
            ("/dashboard/providers/:provider/cutoff", { .provider(try Self.uuid($0, "provider", what: "Provider")) }),
            ("/dashboard/keys/:key/cutoff", { .key(try Self.uuid($0, "key", what: "Key")) }),
        ]
        for scope in scopes {
            let target = scope.target
            routes.on(RouterPath(scope.path + "/review"), method: .post) { request, context in
                try await reviewCutoff(request, context, try target(context))
            }
            routes.on(RouterPath(scope.path), method: .post) { request, context in
                try await cutOff(request, context, try target(context))
            }
        }
        return routes
    }

    var cutoffs: CutoffOperations { CutoffOperations(store: store, clock: clock) }

    /// The object's last cutoff as the pages show it (`{{> last-cutoff}}`): `false` before the first.
    func lastCutoff(_ target: CutoffTarget) async throws -> Any {
        let cutoff = try await store.cutoff(of: target)
        return Self.lastCutoff(at: cutoff.at.map(Timestamp.rfc3339), reason: cutoff.reason)
    }

    static func lastCutoff(at: String?, reason: String?) -> Any {
        guard let at else { return false }
        return ["cutoffAt": at, "cutoffReason": reason ?? "", "hasReason": reason != nil]
    }

    private func reviewCutoff(_ request: Request, _ context: DashboardContext, _ target: CutoffTarget) async throws -> Response {
        let form = try await DashboardForm.read(request)
        let object = try await cutoffObject(target)
        return try await attempt(
            {
                let reason = try CutoffOperations.validated(reason: form.text("reason"))
                return try await cutoffPage(context, target, object, reason: reason)
            }, orShow: { try await cutoffPage(context, target, object, reason: nil, error: $0) })
    }

    private func cutOff(_ request: Request, _ context: DashboardContext, _ target: CutoffTarget) async throws -> Response {
        let form = try await DashboardForm.read(request)
        let object = try await cutoffObject(target)
        return try await attempt(
            {
                guard form["confirm"] == "yes" else {
                    throw DashboardError(.unprocessableContent, "Confirm the cutoff on this page: it ends every session counted here.")
                }
                let result = try await cutoffs.cutOff(target, reason: form.text("reason"))
                let ended = result.sessionsEnded == 1 ? "1 session ended" : "\(result.sessionsEnded) sessions ended"
                await notice("Cut off \(object.kind) \(object.id): \(ended).", context)
                return DashboardResponse.redirect(to: object.back)
            },
            orShow: {
                // A reason that was fine is kept for the next try; a refused one is not shown again.
                let reason = (try? CutoffOperations.validated(reason: form.text("reason"))) ?? nil
                return try await cutoffPage(context, target, object, reason: reason, error: $0)
            })
    }

    /// The confirmation page: the last cutoff, how many sessions a cutoff ends now, the reason
    /// (what was typed, when it was valid) and the button that makes it.
    private func cutoffPage(
        _ context: DashboardContext, _ target: CutoffTarget, _ object: DashboardCutoffObject, reason: String?,
        error: DashboardError? = nil
    ) async throws -> Response {
        let status = try await cutoffs.status(target)
        let chrome = try await chrome(context, object.section, error: error?.message)
        let heading = "Cut off \(object.kind)" + (object.name.isEmpty ? "" : " \(object.name)")
        let values: [String: Any] = [
            "heading": heading, "kind": object.kind, "id": object.id, "back": object.back, "csrf": chrome.csrfToken,
            "action": object.path, "reason": reason ?? "", "live": status.liveSessions,
            "sessionsWord": status.liveSessions == 1 ? "session" : "sessions",
            "cutoff": Self.lastCutoff(at: status.cutoff?.cutoffAt, reason: status.cutoff?.reason),
        ]
        return renderer.page("cutoff", title: heading, values: values, chrome: chrome, status: error?.status ?? .ok)
    }

    /// How the pages name the object, and where its page is; 404 for an unknown one. (A user's
    /// sessions end with the user page's “Revoke all sessions”; its routes make no user cutoff.)
    private func cutoffObject(_ target: CutoffTarget) async throws -> DashboardCutoffObject {
        switch target {
        case .app(let id):
            guard let app = try await store.app(id: id) else { throw DashboardError(.notFound, "App not found.") }
            return DashboardCutoffObject(
                kind: "app", name: app.name, id: LayerID.app(id), path: "/dashboard/apps/\(id.lowercased)/cutoff", section: "apps",
                back: "/dashboard/apps#app-\(id.lowercased)")
        case .provider(let id):
            guard let provider = try await store.provider(id: id) else { throw DashboardError(.notFound, "Provider not found.") }
            return DashboardCutoffObject(
                kind: "provider", name: provider.name, id: LayerID.provider(id), path: "/dashboard/providers/\(id.lowercased)/cutoff",
                section: "providers", back: "/dashboard/providers/\(id.lowercased)")
        case .key(let id):
            guard let key = try await store.key(id: id) else { throw DashboardError(.notFound, "Key not found.") }
            return DashboardCutoffObject(
                kind: "key", name: "", id: LayerID.key(id), path: "/dashboard/keys/\(id.lowercased)/cutoff", section: "providers",
                back: "/dashboard/providers/\(key.providerID.lowercased)")
        case .user:
            throw DashboardError(.notFound, "Not found.")
        }
    }
}

/// An object a dashboard cutoff names: its kind and name for people, its id, and its page.
struct DashboardCutoffObject: Sendable {
    let kind: String
    /// Empty for a key, which has none.
    let name: String
    let id: String
    /// Where its cutoff is posted.
    let path: String
    /// The navigation entry marked current.
    let section: String
    let back: String
}
