/// The error kinds of PROTOCOL §2 with their fixed code, id and HTTP status.
///
/// One table, shared by server and SDK, so that a client can switch on `ErrorKind` instead of
/// comparing strings, and the server cannot send a code with the wrong status.
public enum ErrorKind: String, Codable, Sendable, CaseIterable {
    case serviceUnavailable = "service_unavailable"
    case invalidAppID = "invalid_app_id"
    case authenticationRequired = "authentication_required"
    case rateLimitExceeded = "rate_limit_exceeded"
    case invalidRequest = "invalid_request"
    case internalServerError = "internal_server_error"
    case accessDenied = "access_denied"
    case notFound = "not_found"
    case missingProperty = "missing_property"
    case invalidProperty = "invalid_property"
    case conflict
    case methodNotAllowed = "method_not_allowed"
    case tooLarge = "too_large"
    case uriTooLong = "uri_too_long"
    case headersTooLarge = "headers_too_large"
    case upgradeRequired = "upgrade_required"
    /// A service's request without a valid service credential (PROTOCOL §8.16).
    case serviceCredentialRequired = "service_credential_required"

    public var code: Int {
        switch self {
        case .serviceUnavailable: 1
        case .invalidAppID: 2
        case .authenticationRequired: 4
        case .rateLimitExceeded: 7
        case .invalidRequest: 10
        case .internalServerError: 100
        case .accessDenied: 101
        case .notFound: 102
        case .missingProperty: 104
        case .invalidProperty: 105
        case .conflict: 108
        case .methodNotAllowed: 109
        case .tooLarge: 111
        case .uriTooLong: 112
        case .headersTooLarge: 113
        case .upgradeRequired: 114
        case .serviceCredentialRequired: 115
        }
    }

    public var httpStatus: Int {
        switch self {
        case .serviceUnavailable: 503
        case .invalidAppID: 403
        case .authenticationRequired: 401
        case .rateLimitExceeded: 429
        case .invalidRequest: 400
        case .internalServerError: 500
        case .accessDenied: 403
        case .notFound: 404
        case .missingProperty, .invalidProperty: 422
        case .conflict: 409
        case .methodNotAllowed: 405
        case .tooLarge: 413
        case .uriTooLong: 414
        case .headersTooLarge: 431
        case .upgradeRequired: 426
        case .serviceCredentialRequired: 401
        }
    }

    /// The documentation anchor each error's `url` points at.
    var documentationURL: String { "https://vouch.dev/docs/errors#\(rawValue)" }
}

/// Every error response's body (Layer's shape): `{"id", "code", "message", "url", "data"}`.
public struct ErrorBody: Codable, Sendable, Equatable, Error {
    public var id: String
    public var code: Int
    public var message: String
    public var url: String
    public var data: [String: JSONValue]?

    public init(_ kind: ErrorKind, message: String, data: [String: JSONValue]? = nil) {
        self.id = kind.rawValue
        self.code = kind.code
        self.message = message
        self.url = kind.documentationURL
        self.data = data
    }

    /// The kind, when the id is one this version knows.
    public var kind: ErrorKind? { ErrorKind(rawValue: id) }
}
