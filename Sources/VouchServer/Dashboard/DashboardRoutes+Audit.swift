import Foundation
import Hummingbird
import VouchProtocol
import VouchStore

/// The audit log, filtered by a GET form and paged by links: no script needed.
extension DashboardRoutes {
    /// The signed-in pages of this area, added to the group that requires a dashboard session.
    var auditArea: RouteCollection<DashboardContext> {
        let routes = RouteCollection(context: DashboardContext.self)
        routes.on("/dashboard/audit", method: .get) { request, context in try await auditPage(request, context) }
        return routes
    }

    private func auditPage(_ request: Request, _ context: DashboardContext) async throws -> Response {
        var form = AuditRoutes.queryParameters(request)
        // The form's time fields take what `datetime-local` or a person types: a date, a minute.
        for name in ["since", "until"] {
            if let text = form[name] { form[name] = Self.completedTime(text) }
        }
        var values: [String: Any] = [:]
        var failure: DashboardError?
        var appID: UUID?
        do {
            let parameters = try AuditQueryParameters(form)
            appID = parameters.query.appID
            await rejections.flush(to: store, logger: context.logger)
            let page = try await parameters.page(from: store)
            let names = Dictionary(try await store.apps().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            values["entries"] = page.entries.map { entry -> [String: Any] in
                var row: [String: Any] = [
                    "at": Timestamp.rfc3339(entry.entry.at), "kind": entry.entry.kind.rawValue,
                    "actor": entry.entry.actor ?? "—", "action": entry.entry.action, "outcome": entry.entry.outcome,
                    "count": entry.entry.count,
                ]
                if let app = entry.entry.appID {
                    row["appUUID"] = app.lowercased
                    row["appName"] = names[app] ?? String(app.lowercased.prefix(8)) + "…"
                    row["appLink"] = Self.auditLink(["app_id": app.lowercased], cursor: nil)
                }
                if let id = entry.entry.objectID {
                    row["objectID"] = id
                    row["objectType"] = entry.entry.objectType ?? ""
                    // UUIDs are long and only their start tells them apart on a page; the link's
                    // title and target carry the whole id.
                    row["objectShort"] = LayerID.parseUUID(id) != nil ? String(id.prefix(8)) + "…" : id
                    row["objectLink"] = Self.auditLink(["object": id], cursor: nil)
                }
                return row
            }
            values["hasEntries"] = !page.entries.isEmpty
            if let cursor = page.nextCursor { values["nextPage"] = Self.auditLink(form, cursor: cursor) }
            values["isLaterPage"] = parameters.query.beforeID != nil
            values["firstPage"] = Self.auditLink(form, cursor: nil)
        } catch {
            failure = DashboardError.from(error)
            guard let failure, failure.status.code < 500 else { throw error }
            values["hasEntries"] = false
        }
        let chrome = try await chrome(context, "audit", error: failure?.message)
        let kind = form["kind"] ?? ""
        values["kindAny"] = kind.isEmpty
        values["kindAdmin"] = kind == AuditKind.admin.rawValue
        values["kindRejected"] = kind == AuditKind.signInRejected.rawValue
        for name in ["action", "object", "since", "until"] { values[name] = form[name] ?? "" }
        values["apps"] = try await appOptions(selected: appID)
        return renderer.page("audit", title: "Audit log", values: values, chrome: chrome, status: failure?.status ?? .ok)
    }

    /// `2026-11-23` and `2026-11-23T22:00` (what a browser's date and time fields send) as full
    /// RFC 3339 UTC times; anything else is left for the reader to accept or refuse.
    static func completedTime(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch trimmed.count {
        case 10 where Timestamp.parse(trimmed + "T00:00:00Z") != nil: return trimmed + "T00:00:00Z"
        case 16 where Timestamp.parse(trimmed + ":00Z") != nil: return trimmed + ":00Z"
        case 19 where Timestamp.parse(trimmed + "Z") != nil: return trimmed + "Z"
        default: return trimmed
        }
    }

    /// This page with the same filters, at `cursor` (nil: the newest entries).
    static func auditLink(_ form: [String: String], cursor: Int64?) -> String {
        var items = ["kind", "action", "app_id", "object", "since", "until", "limit"].compactMap { name -> URLQueryItem? in
            guard let value = form[name], !value.isEmpty else { return nil }
            return URLQueryItem(name: name, value: value)
        }
        if let cursor { items.append(URLQueryItem(name: "before", value: String(cursor))) }
        var components = URLComponents()
        components.path = "/dashboard/audit"
        components.queryItems = items.isEmpty ? nil : items
        return (components.string ?? "/dashboard/audit").replacingOccurrences(of: "+", with: "%2B")
    }
}
