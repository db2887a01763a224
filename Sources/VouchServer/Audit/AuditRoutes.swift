import Foundation
import Hummingbird
import Logging
import VouchProtocol
import VouchStore

/// `GET /admin/audit` (PROTOCOL §8): the audit log, filtered and paged, newest first. One of the
/// admin API's collections (`AdminAPI`), behind the admin token.
struct AuditRoutes {
    let store: any Store
    let rejections: SignInRejectionLog

    var routes: RouteCollection<AdminContext> {
        let routes = RouteCollection(context: AdminContext.self)
        routes.get("/audit") { request, context in
            let parameters = try AuditQueryParameters(Self.queryParameters(request))
            // What this instance counted but has not written yet is written first, so the answer
            // includes every rejection this instance has seen.
            await rejections.flush(to: store, logger: context.logger)
            let page = try await parameters.page(from: store)
            return JSONResponse.make(
                AuditPageResponse(
                    events: page.entries.map(\.response),
                    next: page.nextCursor.map(String.init)))
        }
        return routes
    }

    /// The query's parameters, the last value of each name winning; names outside the known
    /// set are ignored by the reader.
    static func queryParameters(_ request: Request) -> [String: String] {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters {
            parameters[String(name)] = String(value)
        }
        return parameters
    }
}
