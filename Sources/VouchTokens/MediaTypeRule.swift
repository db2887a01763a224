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

    func accepts(_ value: String) -> Bool {
        var bytes = Array(value.utf8)
        let prefix = Array("application/".utf8)
        if bytes.count > prefix.count, Self.asciiUppercased(bytes[..<prefix.count]) == Self.asciiUppercased(prefix[...]) {
            bytes.removeFirst(prefix.count)
        }
        let subtype = Self.asciiUppercased(bytes[...])
        return accepted.contains { Array($0.utf8) == subtype }
    }

    private static func asciiUppercased(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.map { (0x61...0x7A).contains($0) ? $0 - 0x20 : $0 }
    }
}
