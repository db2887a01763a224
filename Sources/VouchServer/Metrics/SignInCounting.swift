import Hummingbird
import VouchProtocol

/// Counts sign-ins (`POST /sessions`) by outcome and reason, from what the route itself answered
/// or threw (with the §5.4 reason), before an error becomes a body. Applied by
/// `RequestEnvelopeMiddleware`.
enum SignInCounting {
    static func isSignIn(_ request: Request, route: String?) -> Bool {
        request.method == .post && route == "/sessions"
    }

    static func recordAccepted(in metrics: ServerMetrics) {
        metrics.recordAcceptedSignIn()
    }

    static func record(_ error: any Error, in metrics: ServerMetrics) {
        guard let error = error as? APIError else {
            metrics.recordSignIn(outcome: .refused, reason: "other")
            return
        }
        if case .string(let reason)? = error.body.data?["reason"] {
            metrics.recordSignIn(outcome: .rejected, reason: reason)
        } else {
            metrics.recordSignIn(outcome: .refused, reason: error.body.id)
        }
    }
}
