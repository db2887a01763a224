import Hummingbird
import VouchProtocol

/// Counts every request by method, route pattern and final status, with its duration. Added
/// first, so it sees the answer the error middleware made of any error.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.recordRequest(method: request.method.rawValue, route: context.coreContext.endpointPath.value ?? "unmatched",
                              status: Int(response.status.code), duration: ContinuousClock.now - start)
        return response
    }
}

/// Counts sign-ins (`POST /sessions`) by outcome and reason. Added after the error middleware,
/// so it sees the handler's error itself (with the §5.4 reason) before it becomes a body.
struct SignInMetricsMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post, context.coreContext.endpointPath.value == "/sessions" else {
            return try await next(request, context)
        }
        do {
            let response = try await next(request, context)
            metrics.recordSignIn(outcome: .accepted, reason: "none")
            return response
        } catch let error as APIError {
            if case .string(let reason)? = error.body.data?["reason"] {
                metrics.recordSignIn(outcome: .rejected, reason: reason)
            } else {
                metrics.recordSignIn(outcome: .refused, reason: error.body.id)
            }
            throw error
        } catch {
            metrics.recordSignIn(outcome: .refused, reason: "other")
            throw error
        }
    }
}
