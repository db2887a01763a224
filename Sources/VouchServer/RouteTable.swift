import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers

/// The routes an application serves, kept beside the router so that a request for a known path
/// with the wrong method is answered 405 (with `Allow`) instead of the router's 404.
///
/// A locked box because the error middleware must be added to the router before the routes
/// (Hummingbird wraps each route in the middleware present when it is registered), so the table
/// is filled in after the middleware holding it was created; it is only read once serving starts.
final class RouteTableBox: Sendable {
    private struct Route {
        let method: HTTPRequest.Method
        let segments: [Substring]
    }

    private let routes = NIOLockedValueBox<[Route]>([])

    func add(_ method: HTTPRequest.Method, _ path: String) {
        routes.withLockedValue { $0.append(Route(method: method, segments: path.split(separator: "/"))) }
    }

    /// The methods some route accepts at this path (empty when no route matches the path at all).
    func methods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return routes.withLockedValue { routes in
            routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, segment in pattern.hasPrefix(":") || pattern == segment }
            }.map(\.method)
        }
    }
}

/// Registers handlers on a router or a route group (whose middleware then guards them) and
/// records them in the route table.
struct RouteRegistrar<Context: RequestContext> {
    let router: any RouterMethods<Context>
    let table: RouteTableBox

    func on(_ method: HTTPRequest.Method, _ path: String,
            _ handler: @escaping @Sendable (Request, Context) async throws -> Response) {
        table.add(method, path)
        router.on(RouterPath(path), method: method, use: handler)
    }
}
