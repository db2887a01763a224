import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import VouchProtocol
import VouchStore

/// Turns every error into a PROTOCOL §2 body, so that no route, and no input, can produce a
/// response of another shape, a stack trace, or a crash-and-close.
///
/// What reaches clients is fixed text; the underlying error goes to the log by type only (error
/// descriptions can quote input, and input can be a token).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext

    let routes: RouteTableBox

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response()
        } catch let error as StoreError {
            return Self.apiError(for: error, logger: context.logger).response()
        } catch let error as HTTPError {
            return translate(error, request: request).response()
        } catch is HTTPParserError {
            // A body whose framing is broken (a bad chunk size, a chunk longer than announced):
            // the client's fault. The connection closes after this answer (`ConnectionGuard`).
            context.logger.debug("malformed request body framing")
            return APIError(.invalidRequest, "The request body is not valid HTTP/1.1 (malformed chunked encoding).").response()
        } catch let error where Self.isConnectionFailure(error) {
            // The client went away or the connection was closed by a timeout while the body was
            // being read: nobody is left to answer, and it is not a server fault.
            context.logger.debug("connection ended while reading the request", metadata: ["error_type": "\(type(of: error))"])
            return APIError(.invalidRequest, "The request did not arrive completely.").response()
        } catch is CancellationError {
            return APIError.storeUnavailable.response()
        } catch {
            context.logger.error("unhandled error", metadata: ["error_type": "\(type(of: error))"])
            return APIError.internalError.response()
        }
    }

    /// Errors of the connection itself, which only a client (or the server's own timeouts) causes.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        error is ChannelError || error is IOError
    }

    static func apiError(for error: StoreError, logger: Logger) -> APIError {
        switch error {
        case .notFound:
            return APIError.notFound("The resource")
        case .alreadyExists:
            return APIError(.conflict, "The resource exists already.")
        case .tombstone:
            return APIError(.conflict, "The resource was deleted and cannot be changed.")
        case .nonceAlreadyUsed, .userSuspended:
            // Handled where sign-ins are made; reaching here is a bug, but not the client's.
            logger.error("store sentinel escaped its handler", metadata: ["error": "\(error)"])
            return APIError.internalError
        case .unavailable(let detail):
            logger.error("store unavailable", metadata: ["detail": "\(detail)"])
            return APIError.storeUnavailable
        }
    }

    private func translate(_ error: HTTPError, request: Request) -> APIError {
        switch error.status.code {
        case 404:
            let allowed = routes.methods(forPath: request.uri.path)
            guard !allowed.isEmpty else { return APIError(.notFound, "No such route.") }
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            return APIError(.methodNotAllowed, "Method \(request.method.rawValue) is not allowed here; use \(allow).",
                            headers: [.allow: allow])
        case 413:
            return RequestBodyReader.tooLarge
        case 400..<500:
            return APIError(.invalidRequest, "The request is not valid.")
        default:
            return APIError.internalError
        }
    }
}
