import NIOCore

/// What an IP address is, for deciding whether Vouch may send a request to it: only public
/// addresses are fair game for a URL an app registered, since anything else reaches the network
/// Vouch runs in (RFC 6890's special-purpose registries; an address that embeds an IPv4 address,
/// IPv4-mapped, NAT64 or 6to4, is what the embedded address is).
enum OutboundAddressKind: String, Sendable, Equatable {
    case publicAddress = "public"
    case loopback
    /// RFC 1918, and IPv6 unique local addresses (fc00::/7).
    case privateNetwork = "private"
    /// 169.254/16 (cloud metadata services live there) and fe80::/10.
    case linkLocal = "link-local"
    /// 0.0.0.0/8 and ::, which many stacks treat as this host.
    case unspecified
    case multicast
    /// Carrier-grade NAT (100.64/10), benchmarking, documentation, IETF protocol assignments,
    /// 240/4 and the broadcast address: never a webhook receiver.
    case reserved

    /// The kind of `address`'s IP; `nil` for a Unix domain socket.
    init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self = Self.of(ipv4: withUnsafeBytes(of: v4.address.sin_addr.s_addr) { Array($0) })
        case .v6(let v6):
            self = Self.of(ipv6: withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
    }

    /// Whether `host` is an IP address written as one (not a name): TLS sends no server name then.
    static func isIPLiteral(_ host: String) -> Bool { (try? SocketAddress(ipAddress: host, port: 0)) != nil }

    /// `bytes`: the four bytes of an IPv4 address in network order.
    static func of(ipv4 bytes: [UInt8]) -> Self {
        let (a, b, c) = (bytes[0], bytes[1], bytes[2])
        switch a {
        case 0: return .unspecified
        case 10: return .privateNetwork
        case 127: return .loopback
        case 100 where b & 0xC0 == 64: return .reserved
        case 169 where b == 254: return .linkLocal
        case 172 where b & 0xF0 == 16: return .privateNetwork
        case 192 where b == 168: return .privateNetwork
        case 192 where b == 0 && (c == 0 || c == 2): return .reserved
        case 198 where b & 0xFE == 18: return .reserved
        case 198 where b == 51 && c == 100: return .reserved
        case 203 where b == 0 && c == 113: return .reserved
        case 224...239: return .multicast
        case 240...255: return .reserved
        default: return .publicAddress
        }
    }

    /// `bytes`: the sixteen bytes of an IPv6 address in network order.
    static func of(ipv6 bytes: [UInt8]) -> Self {
        let leadingZeros = bytes.prefix(10).allSatisfy { $0 == 0 }
        if leadingZeros, bytes[10] == 0xFF, bytes[11] == 0xFF { return of(ipv4: Array(bytes[12...])) }  // ::ffff:a.b.c.d
        if leadingZeros, bytes[10] == 0, bytes[11] == 0 {
            if bytes[12...14].allSatisfy({ $0 == 0 }) {
                switch bytes[15] {
                case 0: return .unspecified
                case 1: return .loopback
                default: return .reserved
                }
            }
            return of(ipv4: Array(bytes[12...]))  // ::a.b.c.d, deprecated IPv4-compatible
        }
        if bytes[0] == 0x00, bytes[1] == 0x64, bytes[2] == 0xFF, bytes[3] == 0x9B {
            return of(ipv4: Array(bytes[12...]))  // 64:ff9b::/96, NAT64
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return of(ipv4: Array(bytes[2...5])) }  // 2002::/16, 6to4
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return .reserved }  // documentation
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x00, bytes[3] == 0x00 { return .reserved }  // Teredo
        if bytes[0] & 0xFE == 0xFC { return .privateNetwork }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return .linkLocal }
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0xC0 { return .privateNetwork }  // deprecated site-local
        if bytes[0] == 0xFF { return .multicast }
        return .publicAddress
    }
}
