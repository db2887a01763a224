import Foundation
import VouchProtocol

/// Where a sign-in's outcome is recorded, at the edge where it is known: the metric by outcome and
/// reason, and a rejected token's tally for the audit log (`SignInRejectionLog`).
struct SignInRecorder: Sendable {
    let metrics: ServerMetrics
    let rejections: SignInRejectionLog

    func record(_ outcome: SignInOutcome, appID: UUID) {
        switch outcome {
        case .signedIn:
            metrics.recordAcceptedSignIn()
        case .refused(let rejection, let serverTime):
            metrics.recordSignIn(outcome: .rejected, reason: rejection.reason.rawValue)
            // A rejection is only ever given for an app that exists.
            rejections.record(appID: appID, reason: rejection.reason, at: serverTime)
        }
    }

    /// A sign-in that ended before a verdict: a bad body, an unknown app, the rate limit, the store.
    func recordRefusal(_ error: any Error) {
        metrics.recordSignIn(outcome: .refused, reason: (error as? APIError)?.body.id ?? "other")
    }
}
