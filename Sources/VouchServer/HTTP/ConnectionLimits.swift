import NIOCore
import VouchStore

/// How long a connection may take and how large a request head may be.
///
/// Hummingbird waits for the client to close a connection, and without limits one client with a
/// few hundred silent sockets exhausts the descriptor limit. Every connection is therefore held
/// to two clocks: one for silence (no complete request head, or an idle keep-alive), one for a
/// request that started but whose body does not finish (a trickle).
public struct ConnectionLimits: Sendable, Equatable {
    /// How long a connection may stay silent: before its first complete request head, between
    /// requests on a keep-alive connection, or in the middle of a body.
    public var idleTimeoutSeconds: Int64
    /// How long a request may take from its complete head to the end of its body, however
    /// steadily the bytes trickle in.
    public var requestTimeoutSeconds: Int64

    public init(idleTimeoutSeconds: Int64 = 30, requestTimeoutSeconds: Int64 = 30) {
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
    }

    /// The request target (path and query) may be at most this long: longer is 414.
    static let maximumURIBytes = 8 * 1024
    /// A header's name, and apart from it its value, may each be at most this long: longer is 431.
    /// NIO's decoder holds the target and every name and value to one per-field limit.
    static let maximumHeaderFieldBytes = maximumURIBytes
    /// The target, the header names and their values together (not counting the method, the
    /// version, the colons and the line ends) may be at most this long: longer is 431.
    static let maximumHeaderBytes = 32 * 1024
    /// At most this many header lines: more is 431.
    static let maximumHeaderCount = 100

    /// The range either timeout accepts.
    static let timeoutRange: ClosedRange<Int64> = 1...3600

    public func validate() throws(ConfigurationError) {
        try ConfigurationError.check(idleTimeoutSeconds, in: Self.timeoutRange, "connectionLimits.idleTimeoutSeconds", unit: " seconds")
        try ConfigurationError.check(requestTimeoutSeconds, in: Self.timeoutRange, "connectionLimits.requestTimeoutSeconds", unit: " seconds")
    }
}
