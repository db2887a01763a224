import Hummingbird
import Logging
import NIOCore

/// One log line per request: method, route *pattern* (so `DELETE /sessions/<token>` is logged as
/// `/sessions/:token`, never with the token), status and duration. Headers and bodies are never
/// logged: they carry session tokens, admin tokens and identity tokens.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let route = context.coreContext.endpointPath.value ?? "(no route)"
        context.logger.info("request", metadata: [
            "method": "\(request.method.rawValue)",
            "route": "\(route)",
            "status": "\(response.status.code)",
            "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
        ])
        return response
    }
}
