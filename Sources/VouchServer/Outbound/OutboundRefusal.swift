/// Why Vouch will not send a request to a URL an app registered (a webhook; later, a provider's
/// JWKS): said to the operator who registered it, so each case names what to change.
enum OutboundRefusal: Error, Sendable, Equatable {
    /// Not an absolute URL with a host, or longer than `OutboundPolicy.maximumURLLength`.
    case malformed
    /// `user:password@` in the URL: secrets go in headers Vouch controls, never in a URL it logs.
    case credentialsInURL
    /// Not `https` (plain `http` only to loopback, and only with `--allow-loopback-outbound`).
    case schemeNotAllowed(String)
    /// The host did not resolve, or not within `OutboundPolicy.resolutionTimeout`.
    case unresolvable(host: String)
    /// The host is, or resolves to, an address of a kind Vouch does not reach.
    case forbiddenAddress(String, OutboundAddressKind)

    /// One sentence for an API error's `message`.
    var explanation: String {
        switch self {
        case .malformed:
            "The URL must be an absolute https:// URL with a host, at most \(OutboundPolicy.maximumURLLength) characters."
        case .credentialsInURL:
            "The URL must not carry a user name or password."
        case .schemeNotAllowed(let scheme):
            "The URL's scheme is \(scheme); only https is allowed (http only to loopback with --allow-loopback-outbound)."
        case .unresolvable(let host):
            "The host \(host) did not resolve."
        case .forbiddenAddress(let address, let kind):
            "The host resolves to \(address), a \(kind.rawValue) address; Vouch sends requests only to public addresses"
                + (kind == .loopback ? " (loopback only with --allow-loopback-outbound)." : ".")
        }
    }
}
