import Hummingbird

/// The one place admin routes can be registered: a route group whose middleware has already
/// authenticated the admin token. `AdminRoutes` only ever sees this group, never the bare
/// router, so a route added to it later cannot be left unprotected by forgetting a check.
enum AdminArea {
    static func group(on router: Router<VouchRequestContext>, adminToken: AdminToken) -> RouterGroup<VouchRequestContext> {
        router.group().add(middleware: AdminTokenMiddleware(adminToken: adminToken))
    }
}

/// Refuses (403 `access_denied`) every request without the admin bearer token, before routing
/// reaches a handler, and stamps the context with the principal for those that have it.
struct AdminTokenMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let adminToken: AdminToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard adminToken.authorizes(request.headers) else { throw APIError.accessDenied }
        var context = context
        context.adminPrincipal = .adminToken
        return try await next(request, context)
    }
}
