import Foundation
import NIOCore

/// Where Vouch may send a request that a URL an app registered asks for, and to which address.
///
/// A URL is checked once it is resolved, not before: a name can resolve to anything, including
/// the cloud's metadata service or the database next door. The host is resolved once, every
/// address it resolves to must be public (a name that mixes in one private address is refused
/// rather than trusted to pick the other), and the request is then made to the address checked,
/// so that a second resolution cannot answer differently (DNS rebinding). Redirects are never
/// followed (`OutboundDestination` names one address).
struct OutboundPolicy: Sendable {
    static let maximumURLLength = 2_048
    static let resolutionTimeout: Duration = .seconds(5)

    /// `vouch serve --allow-loopback-outbound`: loopback addresses, over `http` too, for tests and
    /// local development. Private and link-local addresses stay refused.
    var allowsLoopback: Bool
    var resolver: any HostResolver = SystemHostResolver()

    /// The checks that need no network: what a registration refuses at once.
    func parse(_ text: String) throws(OutboundRefusal) -> OutboundURL {
        guard text.utf8.count <= Self.maximumURLLength, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { throw .malformed }
        guard components.user == nil, components.password == nil else { throw .credentialsInURL }
        guard scheme == "https" || (scheme == "http" && allowsLoopback) else { throw .schemeNotAllowed(scheme) }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65_535).contains(port) else { throw .malformed }
        let query = components.percentEncodedQuery.map { "?" + $0 } ?? ""
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return OutboundURL(url: text, scheme: scheme, host: bareHost, port: port, pathAndQuery: path + query)
    }

    /// Parses, resolves and checks `text`: the one address a request to it may be sent to.
    func destination(_ text: String) async throws(OutboundRefusal) -> OutboundDestination {
        let url = try parse(text)
        let addresses: [SocketAddress]
        if let literal = try? SocketAddress(ipAddress: url.host, port: url.port) {
            addresses = [literal]
        } else {
            do {
                addresses = try await resolver.resolve(host: url.host, port: url.port, timeout: Self.resolutionTimeout)
            } catch {
                throw .unresolvable(host: url.host)
            }
            guard !addresses.isEmpty else { throw .unresolvable(host: url.host) }
        }
        for address in addresses {
            guard let kind = OutboundAddressKind(address) else { throw .unresolvable(host: url.host) }
            let allowed = kind == .publicAddress || (kind == .loopback && allowsLoopback)
            guard allowed else { throw .forbiddenAddress(address.ipAddress ?? url.host, kind) }
            if url.scheme == "http", kind != .loopback { throw .schemeNotAllowed(url.scheme) }
        }
        return OutboundDestination(url: url, address: addresses[0])
    }
}

/// A registered URL's parts, as `OutboundPolicy.parse` found them.
struct OutboundURL: Sendable, Equatable {
    let url: String
    let scheme: String
    /// Without the brackets of an IPv6 literal.
    let host: String
    let port: Int
    /// What the request line asks for: the path (at least `/`) and the query, as written.
    let pathAndQuery: String
}

/// A URL and the one checked address a request to it connects to.
struct OutboundDestination: Sendable {
    let url: OutboundURL
    let address: SocketAddress
}
