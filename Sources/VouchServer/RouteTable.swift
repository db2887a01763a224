import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The routes an application serves, kept beside the router so that a request for a known path
/// with the wrong method is answered 405 (with `Allow`) instead of the router's 404.
///
/// A locked box because the error middleware must be added to the router before the routes
/// (Hummingbird wraps each route in the middleware present when it is registered), so the table
/// is filled in after the middleware holding it was created; it is only read once serving starts.
package final class RouteTableBox: Sendable {
    private struct Route {
        let method: HTTPRequest.Method
        let segments: [Substring]
    }

    private let routes = NIOLockedValueBox<[Route]>([])

    package init() {}

    package func add(_ method: HTTPRequest.Method, _ path: String) {
        routes.withLockedValue { $0.append(Route(method: method, segments: path.split(separator: "/"))) }
    }

    /// `{app}` as `RouterPath` spells a parameter, `:app` as routes are written.
    private static func isParameter(_ segment: Substring) -> Bool {
        segment.hasPrefix("{") || segment.hasPrefix(":")
    }

    /// The methods some route accepts at this path (empty when no route matches the path at all).
    package func methods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return routes.withLockedValue { routes in
            routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, segment in Self.isParameter(pattern) || pattern == segment }
            }.map(\.method)
        }
    }
}

/// Registers handlers on a router or a route group (whose middleware then guards them) and
/// records them in the route table. A `RouterMethods` itself, so that groups made from it and
/// route collections added through it (`addRoutes`) are recorded too.
package struct RouteRegistrar<Context: RequestContext>: RouterMethods {
    let router: any RouterMethods<Context>
    let table: RouteTableBox

    package init(router: any RouterMethods<Context>, table: RouteTableBox) {
        self.router = router
        self.table = table
    }

    package func on(_ method: HTTPRequest.Method, _ path: String,
            _ handler: @escaping @Sendable (Request, Context) async throws -> Response) {
        on(RouterPath(path), method: method, use: handler)
    }

    @discardableResult
    package func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
        where Responder.Context == Context {
        table.add(method, path.description)
        _ = router.on(path, method: method, responder: responder)
        return self
    }

    package func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        RouteRegistrar(router: router.add(middleware: middleware), table: table)
    }
}
