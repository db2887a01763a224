import Foundation
import Hummingbird
import Logging
import VouchProtocol
import VouchStore

/// `GET /admin/audit` (PROTOCOL §8): the audit log, filtered and paged, newest first.
struct AuditRoutes {
    let store: any Store
    let rejections: SignInRejectionLog

    func register(_ routes: RouteRegistrar<VouchRequestContext>) {
        routes.on(.get, "/admin/audit") { request, context in
            guard context.adminPrincipal != nil else { throw APIError.accessDenied }
            let parameters = try AuditQueryParameters(Self.queryParameters(request))
            // What this instance counted but has not written yet is written first, so the answer
            // includes every rejection this instance has seen.
            await rejections.flush(to: store, logger: context.logger)
            let page = try await parameters.page(from: store)
            return JSONResponse.make(AuditPageResponse(entries: page.entries.map(\.response),
                                                       nextCursor: page.nextCursor.map(String.init)))
        }
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
