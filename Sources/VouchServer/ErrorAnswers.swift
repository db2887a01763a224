import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import VouchProtocol
import VouchStore

/// Turns every error a route throws into a PROTOCOL §2 answer, so that no route, and no input,
/// can produce a response of another shape, a stack trace, or a crash-and-close.
///
/// `APIError` renders itself; this only translates every other error into one. What reaches
/// clients is fixed text; the underlying error goes to the log by type only (error descriptions
/// can quote input, and input can be a token). Applied by `RequestEnvelopeMiddleware`.
struct ErrorAnswers: Sendable {
    let routes: RouteTableBox

    /// The answer to `error`, thrown by the route that `request` reached (or by the router when
    /// none did).
    func response(for error: any Error, request: Request, context: VouchRequestContext) throws -> Response {
        try apiError(for: error, request: request, logger: context.logger).response(from: request, context: context)
    }

    private func apiError(for error: any Error, request: Request, logger: Logger) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as StoreError:
            return Self.apiError(for: error, logger: logger)
        case let error as any HTTPResponseError:
            // Hummingbird's own (no route, body too large…): its plain-text body, reshaped.
            return translate(error.status, request: request)
        case is HTTPParserError:
            // A body whose framing is broken (a bad chunk size, a chunk longer than announced):
            // the client's fault. The connection closes after this answer (`ConnectionGuard`).
            logger.debug("malformed request body framing")
            return APIError(.invalidRequest, "The request body is not valid HTTP/1.1 (malformed chunked encoding).")
        case let error where Self.isConnectionFailure(error):
            // The client went away or the connection was closed by a timeout while the body was
            // being read: nobody is left to answer, and it is not a server fault.
            logger.debug("connection ended while reading the request", metadata: ["error_type": "\(type(of: error))"])
            return APIError(.invalidRequest, "The request did not arrive completely.")
        case is CancellationError:
            return APIError.storeUnavailable
        default:
            logger.error("unhandled error", metadata: ["error_type": "\(type(of: error))"])
            return APIError.internalError
        }
    }

    /// Errors of the connection itself, which only a client (or the server's own timeouts) causes.
    static func isConnectionFailure(_ error: any Error) -> Bool {
        error is ChannelError || error is IOError
    }

    static func apiError(for error: StoreError, logger: Logger) -> APIError {
        switch error.kind {
        case .notFound:
            return APIError.notFound("The resource")
        case .alreadyExists:
            return APIError(.conflict, "The resource exists already.")
        case .tombstone:
            return APIError(.conflict, "The resource was deleted and cannot be changed.")
        case .limitReached:
            return APIError(.conflict, "The most of these there may be exist already.")
        case .nonceAlreadyUsed, .userSuspended:
            // Handled where sign-ins are made; reaching here is a bug, but not the client's.
            logger.error("store sentinel escaped its handler", metadata: ["error": "\(error)"])
            return APIError.internalError
        case .unavailable:
            logger.error("store unavailable", metadata: ["detail": "\(error.detail ?? "")"])
            return APIError.storeUnavailable
        default:
            logger.error("store error without an answer", metadata: ["error": "\(error)"])
            return APIError.internalError
        }
    }

    private func translate(_ status: HTTPResponse.Status, request: Request) -> APIError {
        switch status.code {
        case 404:
            let allowed = routes.methods(forPath: request.uri.path)
            guard !allowed.isEmpty else { return APIError(.notFound, "No such route.") }
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            return APIError(
                .methodNotAllowed, "Method \(request.method.rawValue) is not allowed here; use \(allow).",
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
