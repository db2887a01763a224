/// How `vouch serve` runs; the defaults are PROTOCOL §7's.
public struct ServerConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// `POST /nonces` + `POST /sessions` per second per client IP (bursts up to twice that);
    /// 0 turns rate limiting off.
    public var rateLimit: Int
    /// Clock leeway for `exp` and `iat`.
    public var leewaySeconds: Int64
    /// The admin bearer token; only its hash is kept in memory by the server.
    public var adminToken: String
    /// How often expired nonces, replay entries and sessions are purged.
    public var purgeIntervalSeconds: Int64
    /// How long an expired session is kept so that it is answered `session_expired` rather than
    /// `session_unknown`.
    public var expiredSessionGraceSeconds: Int64
    /// How long a connection may stay silent, and a request may take to arrive.
    public var connectionLimits: ConnectionLimits
    /// Marks the dashboard's cookies `Secure`: set it when browsers reach the server over HTTPS
    /// (a TLS-terminating proxy in front), so the session cookie never travels in clear text.
    public var secureCookies = false
    /// Addresses of proxies whose `X-Forwarded-For` names the client for the rate limiters
    /// (canonical IP text, see `ClientAddress`); empty: the header is ignored.
    public var trustedProxies: Set<String> = []
    /// Days an audit entry is kept; the housekeeping purge deletes older ones.
    public var auditRetentionDays: Int64 = 90
    /// How often the counted rejected sign-ins are written to the audit log (and always on
    /// graceful shutdown, and before `GET /admin/audit` answers).
    public var auditFlushIntervalSeconds: Int64 = 10

    /// The accepted `auditRetentionDays`: at least a day, at most ten years.
    public static let auditRetentionDaysRange: ClosedRange<Int64> = 1...3650
    /// The accepted `auditFlushIntervalSeconds`.
    public static let auditFlushIntervalRange: ClosedRange<Int64> = 1...3600

    public init(host: String = "127.0.0.1", port: Int = 8080, rateLimit: Int = 50, leewaySeconds: Int64 = 60,
                adminToken: String, purgeIntervalSeconds: Int64 = 60, expiredSessionGraceSeconds: Int64 = 7 * 86_400,
                connectionLimits: ConnectionLimits = ConnectionLimits()) {
        self.host = host
        self.port = port
        self.rateLimit = rateLimit
        self.leewaySeconds = leewaySeconds
        self.adminToken = adminToken
        self.purgeIntervalSeconds = purgeIntervalSeconds
        self.expiredSessionGraceSeconds = expiredSessionGraceSeconds
        self.connectionLimits = connectionLimits
    }
}

extension ServerConfiguration {
    /// An IP address in the form `trustedProxies` holds, or `nil` when `text` is not one.
    public static func canonicalAddress(_ text: String) -> String? { ClientAddress.canonical(text) }
}

/// Printing a configuration (a log line, `dump`, a debugger) never shows the admin token.
extension ServerConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "ServerConfiguration(host: \(host), port: \(port), rateLimit: \(rateLimit), leewaySeconds: \(leewaySeconds), "
            + "adminToken: <redacted>, purgeIntervalSeconds: \(purgeIntervalSeconds), "
            + "expiredSessionGraceSeconds: \(expiredSessionGraceSeconds), connectionLimits: \(connectionLimits), "
            + "secureCookies: \(secureCookies), auditRetentionDays: \(auditRetentionDays), "
            + "auditFlushIntervalSeconds: \(auditFlushIntervalSeconds))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "host": host, "port": port, "rateLimit": rateLimit, "leewaySeconds": leewaySeconds,
            "adminToken": "<redacted>", "purgeIntervalSeconds": purgeIntervalSeconds,
            "expiredSessionGraceSeconds": expiredSessionGraceSeconds, "connectionLimits": connectionLimits,
            "secureCookies": secureCookies, "auditRetentionDays": auditRetentionDays,
            "auditFlushIntervalSeconds": auditFlushIntervalSeconds,
        ])
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
