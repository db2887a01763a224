import Hummingbird
import Logging
import NIOCore

/// The per-request context: Hummingbird's core storage plus the peer address, which the rate
/// limiter keys on.
public struct VouchRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection, kept so that its peer is read only when asked: NIO reads a channel's
    /// addresses under a lock, which most requests (every one when rate limiting is off) would
    /// take for nothing.
    private let channel: any Channel
    /// Set by the admin area's authentication middleware, and by nothing else.
    var adminPrincipal: AdminPrincipal?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// The TCP peer; `nil` for a Unix socket.
    public var remoteAddress: SocketAddress? { channel.remoteAddress }

    /// PROTOCOL §2: bodies over 64 KiB are refused with 413 `too_large`.
    public var maxUploadSize: Int { RequestLimits.maximumBodySize }

    /// The client's IP address as text, or `unknown`: the rate limiters' key. The TCP peer, unless
    /// `ClientAddressMiddleware` found it behind a trusted proxy. Worked out when asked: most
    /// requests never are, and formatting an address is not free.
    var clientIP: String {
        get { forwardedClientIP ?? remoteAddress?.ipAddress ?? "unknown" }
        set { forwardedClientIP = newValue }
    }

    private var forwardedClientIP: String?
}

/// Sizes every request is held to.
enum RequestLimits {
    static let maximumBodySize = 64 * 1024
    /// Session tokens are 43 characters; anything much longer cannot be one and is not hashed.
    static let maximumSessionTokenLength = 512
    static let maximumNameBytes = 128
}
