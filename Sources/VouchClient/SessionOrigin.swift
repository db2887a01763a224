import Foundation

/// A URL's origin (RFC 6454: scheme, host, port), the unit `data(for:)` decides by whether a
/// request may carry the session. Scheme and host compare without case, and a default port is the
/// same origin as none.
struct SessionOrigin: Hashable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// HTTPS anywhere; plain HTTP only to this device, where no network sees the token.
    var allowsSession: Bool {
        scheme == "https" || host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]"
            || host.hasPrefix("127.")
    }

    var description: String { "\(scheme)://\(host):\(port)" }
}

extension SessionOrigin {
    /// The server a stored session belongs to, spelled one way (RFC 3986 §6.2.2–6.2.3): its origin
    /// and its path without trailing slashes, so that `https://host`, `https://host/` and
    /// `HTTPS://host:443` are one server and an app update that respells it signs nobody out.
    static func serverKey(_ url: URL) -> String {
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        return (SessionOrigin(url)?.description ?? url.absoluteString) + path
    }
}

/// Where one app's sessions with one server live inside the storage directory (and the Keychain
/// account they are kept under): two clients for different apps or servers never share a session
/// file or a data container, whatever directory the app gives them.
enum StorageNamespace {
    /// `<app uuid>@<server key>`, the server key percent-encoded so that the name is one path
    /// component and two different servers never share it.
    static func name(appUUID: String, serverURL: URL) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._")
        let server = SessionOrigin.serverKey(serverURL).addingPercentEncoding(withAllowedCharacters: unreserved) ?? "server"
        return "\(appUUID)@\(server)"
    }
}
