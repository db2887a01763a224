import Hummingbird

/// What Vouch does around every request, as one middleware: errors become PROTOCOL §2 answers
/// (`ErrorAnswers`), and every request is counted, timed and logged by route pattern and final
/// status (`ServerMetrics`, `RequestLog`).
///
/// One middleware rather than three because each layer is an async call that copies the request
/// and its context. The request's count and log line see the answer that was sent.
struct RequestEnvelopeMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let errors: ErrorAnswers
    let metrics: ServerMetrics
    /// Whether the server runs at a level that writes request lines (`RequestLog.level` or more
    /// verbose). Asking the logger costs a copy of its handler on every request (swift-log's
    /// `Logger` yields its handler from a class, so reading the level copies it), for a line that
    /// a server at `warning` or `error` never writes.
    var writesRequestLines = true

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = try errors.response(for: error, request: request, context: context)
        }
        let elapsed = ContinuousClock.now - start
        let route = context.coreContext.endpointPath.value
        metrics.recordRequest(
            method: request.method.rawValue, route: route ?? "unmatched",
            status: Int(response.status.code), duration: elapsed)
        if writesRequestLines {
            RequestLog.write(request, route: route, status: response.status, elapsed: elapsed, to: context.logger)
        }
        return response
    }
}
