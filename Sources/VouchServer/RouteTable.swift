import HTTPTypes
import Hummingbird
import Synchronization

/// The methods each path of an application accepts, so that a request for a known path with the
/// wrong method is answered 405 (with `Allow`) instead of the router's 404.
///
/// Filled once from `Router.routes` after every route is registered: the error middleware that
/// reads it must be added to the router before the routes (Hummingbird wraps each route in the
/// middleware present when it is registered), so it is created empty and only read once serving
/// starts.
package final class RouteTableBox: Sendable {
    private struct Route {
        let method: HTTPRequest.Method
        let segments: [Substring]
    }

    private let routes = Mutex<[Route]>([])

    package init() {}

    /// Records every route `router` has; call once, after the last route is registered.
    package func load<Context>(from router: Router<Context>) {
        let loaded = router.routes.map { Route(method: $0.method, segments: $0.path.description.split(separator: "/")) }
        routes.withLock { $0 = loaded }
    }

    /// `{app}` as `RouterPath` spells a parameter, `:app` as routes are written.
    private static func isParameter(_ segment: Substring) -> Bool {
        segment.hasPrefix("{") || segment.hasPrefix(":")
    }

    /// The methods some route accepts at this path (empty when no route matches the path at all).
    package func methods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/")
        return routes.withLock { routes in
            routes.filter { route in
                route.segments.count == segments.count
                    && zip(route.segments, segments).allSatisfy { pattern, segment in Self.isParameter(pattern) || pattern == segment }
            }.map(\.method)
        }
    }
}
