import Foundation
import HTTPTypes
import Hummingbird
import VouchProtocol

/// An error answer of PROTOCOL §2, thrown by handlers; it renders itself (`HTTPResponseError`).
///
/// Handlers never build error responses by hand: they throw one of these, so every error body
/// has the same shape, code and status whatever route produced it. `ErrorAnswers` only turns
/// errors of other types (the store's, Hummingbird's, the connection's) into one of these.
public struct APIError: HTTPResponseError, Sendable {
    public var body: ErrorBody
    public var headers: HTTPFields

    public init(_ kind: ErrorKind, _ message: String, data: [String: JSONValue]? = nil, headers: HTTPFields = [:]) {
        self.body = ErrorBody(kind, message: message, data: data)
        self.headers = headers
    }

    public var status: HTTPResponse.Status { .init(code: body.kind?.httpStatus ?? 500) }

    static func missingProperty(_ name: String) -> APIError {
        APIError(.missingProperty, "The property `\(name)` is required.", data: ["property": .string(name)])
    }

    static func invalidProperty(_ name: String, _ message: String) -> APIError {
        APIError(.invalidProperty, message, data: ["property": .string(name)])
    }

    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, "\(what) not found.")
    }

    static let invalidAppID = APIError(.invalidAppID, "The app_id is not the id of a known application.")
    static let accessDenied = APIError(.accessDenied, "A valid admin token is required: Authorization: Bearer <admin token>.")
    static let storeUnavailable = APIError(.serviceUnavailable, "The service cannot reach its database; try again shortly.")
    static let internalError = APIError(.internalServerError, "An internal error occurred.")

    /// The 422 for a refused token (PROTOCOL §3): the reason's fixed message, and its detail in `data`.
    static func rejectedToken(_ rejection: TokenRejection, serverTime: Int64) -> APIError {
        var data: [String: JSONValue] = [
            "property": "identity_token",
            "reason": .string(rejection.reason.rawValue),
            "server_time": .number(JSONNumber(serverTime)),
        ]
        if let param = rejection.param { data["param"] = .string(param) }
        if let claim = rejection.claim { data["claim"] = .string(claim) }
        if let hint = rejection.hint { data["hint"] = .string(hint) }
        return APIError(.invalidProperty, rejection.message, data: data)
    }

    /// The PROTOCOL §2 body with this error's status and extra headers (`Allow`, `Retry-After`,
    /// `WWW-Authenticate`…).
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(body, status: status)
        for field in headers { response.headers.append(field) }
        return response
    }
}
