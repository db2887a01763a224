import Hummingbird

/// The one place admin routes can be registered: a route group whose middleware has already
/// authenticated the admin token, and whose context is `AdminContext`. Route collections of
/// `AdminContext` can only be added here (the open router has another context type), so a
/// route added later cannot be left unprotected by forgetting a check.
enum AdminArea {
    /// Every admin API path starts here; collections give their paths relative to it.
    static let pathPrefix: RouterPath = "/admin"

    static func group(on router: some RouterMethods<VouchRequestContext>, adminToken: AdminToken) -> RouterGroup<AdminContext> {
        router.group()
            .add(middleware: AdminTokenMiddleware(adminToken: adminToken))
            .group(context: AdminContext.self)
    }

    /// Adds the collections under `/admin`, behind the admin token; `middleware` (the audit log)
    /// runs after authentication for every one of them.
    static func register(
        _ collections: [RouteCollection<AdminContext>],
        on router: some RouterMethods<VouchRequestContext>, adminToken: AdminToken,
        middleware: [any MiddlewareProtocol<Request, Response, AdminContext>] = []
    ) {
        var area = group(on: router, adminToken: adminToken)
        for middleware in middleware {
            area = area.add(middleware: middleware)
        }
        for collection in collections {
            area.addRoutes(collection, atPath: pathPrefix)
        }
    }
}

/// Refuses (403 `access_denied`) every request without the admin bearer token, before routing
/// reaches a handler, and stamps the context with the principal for those that have it (from
/// which `AdminContext` is made).
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
