import Foundation

/// A `postgres://user:password@host:port/database?sslmode=…` URL, parsed once, with a printable
/// form that never contains the password.
///
/// Operators paste these URLs into flags, environment variables and bug reports; the password
/// must not travel further than the connection's authentication, so every log line and every error
/// message uses ``redacted``.
public struct PostgresDatabaseURL: Sendable, CustomStringConvertible {
    /// How the connection uses TLS (libpq's `sslmode`, reduced to what the client can do).
    public enum TLSMode: String, Sendable {
        /// Plain TCP (`sslmode=disable`): only for loopback or a private network.
        case disable
        /// TLS if the server offers it, plain otherwise (`sslmode=prefer`, the default).
        case prefer
        /// TLS or no connection (`sslmode=require`).
        case require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tlsMode: TLSMode

    /// Parses `text`; the error names what is wrong, never the password.
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw StoreURLError("the database URL must look like postgres://USER:PASSWORD@HOST:PORT/DATABASE")
        }
        guard let host = components.host, !host.isEmpty else {
            throw StoreURLError("the database URL names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StoreURLError("the database URL names no user")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw StoreURLError("the database URL's port must be 1…65535") }
        var database = components.path
        if database.hasPrefix("/") { database.removeFirst() }
        var tlsMode = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw StoreURLError("sslmode must be disable, prefer or require")
                }
                tlsMode = mode
            default:
                throw StoreURLError("unknown database URL parameter \(item.name) (only sslmode is understood)")
            }
        }
        self.host = host
        self.port = port
        self.username = user
        self.password = components.password
        self.database = database.isEmpty ? user : database
        self.tlsMode = tlsMode
    }

    /// The URL with the password replaced by `***`: the only form that may be printed.
    var redacted: String {
        let credentials = password == nil ? username : "\(username):***"
        return "postgres://\(credentials)@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
    }

    public var description: String { redacted }

    /// The full URL, password included: only for handing to a child process or a connection,
    /// never for printing.
    public var unredactedString: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = username
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        components.queryItems = [URLQueryItem(name: "sslmode", value: tlsMode.rawValue)]
        return components.string ?? redacted
    }

    /// The same server and credentials, another database (for tests that create their own).
    public func withDatabase(_ name: String) -> PostgresDatabaseURL {
        var copy = self
        copy.database = name
        return copy
    }
}

/// A database URL that cannot be used; the message never contains the password.
public struct StoreURLError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
