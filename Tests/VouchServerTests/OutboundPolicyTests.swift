import NIOCore
import Testing

@testable import VouchServer

/// A URL an app registers reaches only public addresses, checked after resolution.
@Suite("Outbound policy: https to public addresses only, checked once resolved")
struct OutboundPolicyTests {
    /// DNS answers fixed in advance, for the rules about what a name resolves to (no network here).
    struct FixedResolver: HostResolver {
        let answers: [String: [String]]
        func resolve(host: String, port: Int, timeout: Duration) async throws -> [SocketAddress] {
            guard let addresses = answers[host] else { throw SystemHostResolver.Failure.failed }
            return try addresses.map { try SocketAddress(ipAddress: $0, port: port) }
        }
    }

    static let strict = OutboundPolicy(allowsLoopback: false)
    static let loopbackAllowed = OutboundPolicy(allowsLoopback: true)

    @Test("addresses of every special kind are classified, including IPv4 inside IPv6")
    func kinds() throws {
        let expected: [(String, OutboundAddressKind)] = [
            ("93.184.215.14", .publicAddress), ("2606:4700::1111", .publicAddress), ("1.1.1.1", .publicAddress),
            ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("::1", .loopback),
            ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("192.168.1.1", .privateNetwork), ("fd00::1", .privateNetwork), ("fc00::1", .privateNetwork),
            ("169.254.169.254", .linkLocal), ("fe80::1", .linkLocal),
            ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
            ("224.0.0.1", .multicast), ("ff02::1", .multicast),
            ("100.64.0.1", .reserved), ("192.0.2.1", .reserved), ("198.18.0.1", .reserved), ("240.0.0.1", .reserved),
            ("255.255.255.255", .reserved), ("2001:db8::1", .reserved),
            ("::ffff:127.0.0.1", .loopback), ("::ffff:10.0.0.1", .privateNetwork), ("::ffff:8.8.8.8", .publicAddress),
            ("64:ff9b::a9fe:a9fe", .linkLocal), ("2002:7f00:1::", .loopback), ("::10.0.0.1", .privateNetwork),
            ("172.32.0.1", .publicAddress), ("100.128.0.1", .publicAddress), ("11.0.0.1", .publicAddress),
        ]
        for (text, kind) in expected {
            let address = try SocketAddress(ipAddress: text, port: 443)
            #expect(OutboundAddressKind(address) == kind, "\(text)")
        }
    }

    @Test("a URL that is not absolute https with a host, or carries credentials, is refused before any lookup")
    func parsing() {
        let refusals: [(String, OutboundRefusal)] = [
            ("", .malformed), ("not a url", .malformed), ("/relative/path", .malformed), ("https://", .malformed),
            ("https://" + String(repeating: "a", count: 2_100) + ".example", .malformed),
            ("http://example.com/hook", .schemeNotAllowed("http")), ("ftp://example.com/", .schemeNotAllowed("ftp")),
            ("file:///etc/passwd", .malformed), ("javascript://example.com/", .schemeNotAllowed("javascript")),
            ("https://user:secret@example.com/", .credentialsInURL), ("https://user@example.com/", .credentialsInURL),
            ("https://example.com:0/", .malformed), ("https://example.com:70000/", .malformed),
        ]
        for (text, refusal) in refusals {
            #expect(throws: refusal, "\(text)") { try Self.strict.parse(text) }
        }
        #expect(throws: OutboundRefusal.schemeNotAllowed("http")) { try Self.strict.parse("http://127.0.0.1/") }
        #expect((try? Self.strict.parse("HTTPS://Example.com/hook?a=1"))?.port == 443)
        #expect((try? Self.loopbackAllowed.parse("http://127.0.0.1:8080/"))?.port == 8080)
    }

    @Test("literal addresses of every forbidden kind, and names the system resolves to loopback, are refused")
    func forbiddenAddresses() async {
        let urls = [
            "https://127.0.0.1/", "https://[::1]/", "https://10.0.0.7/", "https://192.168.0.1:8443/",
            "https://169.254.169.254/latest/meta-data/", "https://[fe80::1]/", "https://0.0.0.0/", "https://[::ffff:127.0.0.1]/",
            "https://100.64.1.1/", "https://[fd12::1]/", "https://localhost/",
            // Numeric forms inet_pton refuses but getaddrinfo reads as 127.0.0.1.
            "https://2130706433/", "https://127.1/", "https://0x7f000001/",
            "https://127.0.0.%31/",
        ]
        for url in urls {
            await #expect(throws: OutboundRefusal.self, "\(url)") { try await Self.strict.destination(url) }
            do {
                _ = try await Self.strict.destination(url)
            } catch {
                guard case .forbiddenAddress = error else {
                    Issue.record("\(url): \(error)")
                    continue
                }
            }
        }
    }

    @Test("with --allow-loopback-outbound: loopback over http or https, private and link-local still refused")
    func loopbackAllowed() async throws {
        let destination = try await Self.loopbackAllowed.destination("http://127.0.0.1:8080/hooks")
        #expect(destination.address.ipAddress == "127.0.0.1")
        #expect(destination.address.port == 8080)
        #expect(try await Self.loopbackAllowed.destination("https://[::1]:9443/").address.ipAddress == "::1")
        #expect(try await Self.loopbackAllowed.destination("http://localhost:8080/").address.port == 8080)
        await #expect(throws: OutboundRefusal.forbiddenAddress("10.0.0.1", .privateNetwork)) {
            try await Self.loopbackAllowed.destination("http://10.0.0.1/")
        }
        await #expect(throws: OutboundRefusal.forbiddenAddress("169.254.169.254", .linkLocal)) {
            try await Self.loopbackAllowed.destination("https://169.254.169.254/")
        }
    }

    @Test("a name is checked by every address it resolves to, and the request goes to the address checked")
    func resolution() async throws {
        var policy = OutboundPolicy(allowsLoopback: false)
        policy.resolver = FixedResolver(answers: [
            "hooks.example": ["93.184.215.14", "2606:4700::1111"], "mixed.example": ["93.184.215.14", "10.0.0.5"],
            "empty.example": [],
        ])
        let destination = try await policy.destination("https://hooks.example/vouch")
        #expect(destination.address.ipAddress == "93.184.215.14")
        #expect(destination.url.host == "hooks.example")
        await #expect(throws: OutboundRefusal.forbiddenAddress("10.0.0.5", .privateNetwork)) {
            try await policy.destination("https://mixed.example/")
        }
        await #expect(throws: OutboundRefusal.unresolvable(host: "empty.example")) { try await policy.destination("https://empty.example/") }
        await #expect(throws: OutboundRefusal.unresolvable(host: "nowhere.example")) {
            try await policy.destination("https://nowhere.example/")
        }
        // The system resolver gives up on a name that cannot resolve here, never hangs.
        await #expect(throws: OutboundRefusal.unresolvable(host: "no-such-host.invalid")) {
            try await Self.strict.destination("https://no-such-host.invalid/")
        }
    }
}
