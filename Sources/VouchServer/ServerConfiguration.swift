import Foundation
import VouchStore

/// How `vouch serve` runs; the defaults are PROTOCOL §7's. Each range is a static member beside its
/// field, checked by `validate()`, which `makeApplication` runs before anything starts.
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
    /// The URL services reach this server at (`https://vouch.example.com`): the `iss` of its
    /// access tokens and the base of its JWKS's address. `nil`: `http://<host>:<bound port>`,
    /// right for local development only.
    public var publicURL: String?
    /// When Vouch's own signing keys rotate.
    public var signingKeys = SigningKeySchedule()
    /// Lets URLs an app registers (webhooks) reach loopback addresses, over plain http too: for
    /// tests and local development (`OutboundPolicy`). Private and link-local stay refused.
    public var allowsLoopbackOutbound = false
    /// How webhook deliveries are retried and how many run at once.
    public var webhookDeliveries = WebhookDeliverySettings()
    /// How long providers' fetched keys are trusted through an outage of their source.
    public var keySources = KeySourceSettings()

    static let portRange = 0...65_535
    /// 0 turns rate limiting off.
    static let rateLimitRange = 0...1_000_000
    static let leewaySecondsRange: ClosedRange<Int64> = 0...3600
    static let purgeIntervalSecondsRange: ClosedRange<Int64> = 1...86_400
    /// At most a year: an expired session's row is kept no longer.
    static let expiredSessionGraceSecondsRange: ClosedRange<Int64> = 0...31_536_000
    /// The accepted `auditRetentionDays`: at least a day, at most ten years.
    static let auditRetentionDaysRange: ClosedRange<Int64> = 1...3650
    /// The accepted `auditFlushIntervalSeconds`.
    static let auditFlushIntervalRange: ClosedRange<Int64> = 1...3600

    /// Every field within its range; the connection limits' too.
    public func validate() throws(ConfigurationError) {
        try ConfigurationError.check(port, in: Self.portRange, "port")
        try ConfigurationError.check(rateLimit, in: Self.rateLimitRange, "rateLimit")
        try ConfigurationError.check(leewaySeconds, in: Self.leewaySecondsRange, "leewaySeconds", unit: " seconds")
        guard !adminToken.isEmpty else { throw ConfigurationError(field: "adminToken", accepted: "a token of at least one character") }
        try ConfigurationError.check(purgeIntervalSeconds, in: Self.purgeIntervalSecondsRange, "purgeIntervalSeconds", unit: " seconds")
        try ConfigurationError.check(
            expiredSessionGraceSeconds, in: Self.expiredSessionGraceSecondsRange, "expiredSessionGraceSeconds",
            unit: " seconds")
        try connectionLimits.validate()
        try ConfigurationError.check(auditRetentionDays, in: Self.auditRetentionDaysRange, "auditRetentionDays", unit: " days")
        try ConfigurationError.check(auditFlushIntervalSeconds, in: Self.auditFlushIntervalRange, "auditFlushIntervalSeconds", unit: " seconds")
        if let publicURL, !Self.isValidPublicURL(publicURL) {
            throw ConfigurationError(
                field: "publicURL", accepted: "an http or https URL with a host, without a trailing slash, query or fragment")
        }
        try signingKeys.validate(leewaySeconds: leewaySeconds)
        try webhookDeliveries.validate()
        try keySources.validate()
        for address in trustedProxies where ClientAddress.canonical(address) != address {
            throw ConfigurationError(field: "trustedProxies", accepted: "IP addresses in canonical form (\(address) is not)")
        }
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, rateLimit: Int = 50, leewaySeconds: Int64 = 60,
        adminToken: String, purgeIntervalSeconds: Int64 = 60, expiredSessionGraceSeconds: Int64 = 7 * 86_400,
        connectionLimits: ConnectionLimits = ConnectionLimits()
    ) {
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
    /// `http(s)://host[:port][/path]`: printable ASCII without quotes or backslashes, no trailing
    /// slash, no query, no fragment, so that `<url>/.well-known/jwks.json` is the JWKS's address
    /// and the text can be compared byte for byte as an `iss`.
    public static func isValidPublicURL(_ text: String) -> Bool {
        guard text.utf8.count <= 512, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C }),
            !text.hasSuffix("/"), !text.contains("?"), !text.contains("#"),
            let components = URLComponents(string: text), let scheme = components.scheme,
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil
        else { return false }
        return text.hasPrefix(scheme + "://")
    }

    /// The issuer of a server without a public URL: where it listens, for local development.
    static func developmentURL(host: String, port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

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
            + "auditFlushIntervalSeconds: \(auditFlushIntervalSeconds), publicURL: \(publicURL ?? "none"), "
            + "signingKeys: \(signingKeys), allowsLoopbackOutbound: \(allowsLoopbackOutbound), "
            + "webhookDeliveries: \(webhookDeliveries), keySources: \(keySources))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "rateLimit": rateLimit, "leewaySeconds": leewaySeconds,
                "adminToken": "<redacted>", "purgeIntervalSeconds": purgeIntervalSeconds,
                "expiredSessionGraceSeconds": expiredSessionGraceSeconds, "connectionLimits": connectionLimits,
                "secureCookies": secureCookies, "auditRetentionDays": auditRetentionDays,
                "auditFlushIntervalSeconds": auditFlushIntervalSeconds, "publicURL": publicURL as Any,
                "signingKeys": signingKeys, "allowsLoopbackOutbound": allowsLoopbackOutbound,
                "webhookDeliveries": webhookDeliveries, "keySources": keySources,
            ])
    }
}
