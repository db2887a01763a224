/// How a `typ` header value is compared: as a media type (RFC 7515 §4.1.9), not as bytes.
///
/// Layer's earlier guides and several of its published sample backends (Node, Java, Python) sent
/// `"typ": "JWS"`; others send `JWT`, some `application/jwt`. A media type is case-insensitive and
/// `application/` is implied when no `/` is present, so all of those name the same thing and an
/// existing backend keeps working unchanged. Only ASCII letters are folded: `ＪＷＴ` (full-width)
/// or a Turkish dotless `ı` never match.
struct MediaTypeRule: Sendable {
    /// Accepted subtypes, in upper case, without the `application/` prefix.
    let accepted: [String]

    /// Shown in the hint of #7: the spellings a minter should use.
    var description: String { accepted.map { "`\($0)`" }.joined(separator: " or ") }

    /// Compared where the bytes lie, without copies: the rule runs on every token's header.
    func accepts(_ value: String) -> Bool {
        let bytes = value.utf8
        let prefix = "application/".utf8
        var subtype = bytes[...]
        if bytes.count > prefix.count, Self.equalIgnoringASCIICase(bytes.prefix(prefix.count), prefix) {
            subtype = bytes.dropFirst(prefix.count)
        }
        return accepted.contains { Self.equalIgnoringASCIICase(subtype, $0.utf8) }
    }

    private static func equalIgnoringASCIICase(_ mine: some Collection<UInt8>, _ theirs: some Collection<UInt8>) -> Bool {
        mine.count == theirs.count && zip(mine, theirs).allSatisfy { asciiUppercased($0) == asciiUppercased($1) }
    }

    private static func asciiUppercased(_ byte: UInt8) -> UInt8 {
        (0x61...0x7A).contains(byte) ? byte - 0x20 : byte
    }
}
