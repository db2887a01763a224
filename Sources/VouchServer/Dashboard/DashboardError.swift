import HTTPTypes
import Hummingbird
import VouchStore

/// A dashboard failure shown as a page: a status and fixed text, never a stack or the input.
struct DashboardError: Error, Sendable {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The text to show for any error a dashboard handler met: the admin API's own message for
    /// its errors (they are written for people), fixed text for everything else.
    static func from(_ error: any Error) -> DashboardError {
        switch error {
        case let error as DashboardError:
            return error
        case let error as APIError:
            return DashboardError(error.status, error.body.message)
        case StoreError.notFound:
            return DashboardError(.notFound, "It was not found.")
        case StoreError.alreadyExists:
            return DashboardError(.conflict, "It exists already.")
        case let error as StoreError where error.kind == .unavailable:
            return DashboardError(.serviceUnavailable, "The service cannot reach its database; try again shortly.")
        default:
            return DashboardError(.internalServerError, "Something went wrong on the server; see its log.")
        }
    }
}
