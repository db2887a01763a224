import Hummingbird
import NIOCore

/// Which address a request comes from, for the per-client limits.
///
/// Behind a TLS-terminating proxy every TCP peer is the proxy, and all clients would share one
/// bucket. `X-Forwarded-For` says who the proxy was talking to, but anyone can send the header, so
/// it is believed only when the TCP peer is a proxy the operator named (`--trusted-proxy`), and
/// then only as far as the trusted proxies go: the list is read from the right (each proxy appends
/// the address it saw) and the first address that is not itself a trusted proxy is the client.
/// Without trusted proxies the header is ignored.
enum ClientAddress {
    /// `address` in the canonical form `SocketAddress` prints, or `nil` when it is not an IP address.
    static func canonical(_ address: some StringProtocol) -> String? {
        let trimmed = address.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        return (try? SocketAddress(ipAddress: trimmed, port: 0))?.ipAddress
    }

    static func resolve(peer: String?, forwardedFor: String?, trustedProxies: Set<String>) -> String {
        guard let peer else { return "unknown" }
        guard trustedProxies.contains(peer), let forwardedFor else { return peer }
        for hop in forwardedFor.split(separator: ",").reversed() {
            // Anything that is not an address ends the walk: what lies to its left is unverifiable.
            guard let address = canonical(hop) else { return peer }
            if !trustedProxies.contains(address) { return address }
        }
        return peer
    }
}

/// Puts the resolved client address into the context, before any route or limiter reads it.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = VouchRequestContext
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let forwarded = request.headers[values: .init("X-Forwarded-For")!].joined(separator: ",")
        context.clientIP = ClientAddress.resolve(
            peer: context.remoteAddress?.ipAddress,
            forwardedFor: forwarded.isEmpty ? nil : forwarded,
            trustedProxies: trustedProxies)
        return try await next(request, context)
    }
}
