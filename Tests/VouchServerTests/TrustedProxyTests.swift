import Testing
@testable import VouchServer

/// OPERATIONS "Behind a proxy": `X-Forwarded-For` names the client only when the TCP peer is a
/// proxy the operator trusts, and only as far as trusted proxies go.
@Suite("Client addresses behind trusted proxies")
struct TrustedProxyTests {
    @Test("resolution: the header is believed from trusted peers only, read from the right")
    func resolution() {
        let trusted: Set<String> = ["10.0.0.1", "10.0.0.2"]
        func client(_ peer: String?, _ header: String?) -> String {
            ClientAddress.resolve(peer: peer, forwardedFor: header, trustedProxies: trusted)
        }
        #expect(client("192.0.2.7", "203.0.113.9") == "192.0.2.7", "an untrusted peer's header is ignored")
        #expect(client("10.0.0.1", nil) == "10.0.0.1")
        #expect(client("10.0.0.1", "203.0.113.9") == "203.0.113.9")
        #expect(
            client("10.0.0.1", "198.51.100.1, 203.0.113.9, 10.0.0.2") == "203.0.113.9",
            "the first untrusted hop from the right; what the client itself wrote on the left is not believed")
        #expect(client("10.0.0.1", "10.0.0.2") == "10.0.0.1", "only proxies: the peer")
        #expect(client("10.0.0.1", "203.0.113.9, not-an-address") == "10.0.0.1", "garbage stops the walk")
        #expect(client("10.0.0.1", " 2001:DB8::1 ") == "2001:db8::1", "canonical form")
        #expect(client(nil, "203.0.113.9") == "unknown")
    }

    @Test("canonical addresses: IPv4 and IPv6 only")
    func canonical() {
        #expect(ServerConfiguration.canonicalAddress("127.0.0.1") == "127.0.0.1")
        #expect(ServerConfiguration.canonicalAddress("::1") == "::1")
        for garbage in ["", "localhost", "10.0.0.256", "10.0.0.0/8", String(repeating: "1", count: 100)] {
            #expect(ServerConfiguration.canonicalAddress(garbage) == nil, "\(garbage)")
        }
    }

    @Test("over HTTP: behind a trusted proxy each forwarded client has its own bucket; otherwise all share one")
    func buckets() async throws {
        // The test's own connections come from 127.0.0.1, which plays the proxy.
        try await LiveServer.run(rateLimit: 1, trustedProxies: ["127.0.0.1"]) { server in
            let statuses = try await Self.nonceStatuses(server, forwardedFor: ["203.0.113.1", "203.0.113.1", "203.0.113.1", "203.0.113.2"])
            #expect(statuses == [201, 201, 429, 201], "another client behind the same proxy has its own bucket")
        }
        try await LiveServer.run(rateLimit: 1) { server in
            let statuses = try await Self.nonceStatuses(server, forwardedFor: ["203.0.113.1", "203.0.113.2", "203.0.113.3"])
            #expect(statuses == [201, 201, 429], "without trusted proxies the header changes nothing")
        }
    }

    private static func nonceStatuses(_ server: LiveServer, forwardedFor: [String]) async throws -> [Int] {
        var statuses: [Int] = []
        for address in forwardedFor {
            statuses.append(try await server.request(.POST, "/nonces", headers: ["X-Forwarded-For": address]).status)
        }
        return statuses
    }
}
