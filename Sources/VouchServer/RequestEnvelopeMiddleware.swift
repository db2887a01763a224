import Hummingbird

/// What Vouch does around every request, as one middleware: errors become PROTOCOL §2 answers
/// (`ErrorAnswers`), sign-ins are counted by outcome and reason (`SignInCounting`), and every
/// request is counted, timed and logged by route pattern and final status (`ServerMetrics`,
/// `RequestLog`).
///
/// One middleware rather than four because each layer is an async call that copies the request
/// and its context, and two read the clock again: in process, one in their place took about a
/// quarter of a bare request off a `POST /nonces` (docs/PERFORMANCE-JOURNAL.md, "2026-11-26, late
/// morning"). The order of the four is kept: the sign-in count sees what the route threw, the
/// request's count and log line see the answer that was sent.
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
        // A matched route's pattern is known before it runs; the router's "not found" answer
        // names itself only once it has run, so the pattern is read again at the end.
        let countsSignIn = SignInCounting.isSignIn(request, route: context.coreContext.endpointPath.value)
        let response: Response
        do {
            response = try await next(request, context)
            if countsSignIn { SignInCounting.recordAccepted(in: metrics) }
        } catch {
            if countsSignIn { SignInCounting.record(error, in: metrics) }
            response = try errors.response(for: error, request: request, context: context)
        }
        let elapsed = ContinuousClock.now - start
        let route = context.coreContext.endpointPath.value
        metrics.recordRequest(method: request.method.rawValue, route: route ?? "unmatched",
                              status: Int(response.status.code), duration: elapsed)
        if writesRequestLines {
            RequestLog.write(request, route: route, status: response.status, elapsed: elapsed, to: context.logger)
        }
        return response
    }
}
