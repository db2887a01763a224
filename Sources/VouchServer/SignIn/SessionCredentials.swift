/// Parses the two `Authorization` forms of PROTOCOL §3:
/// `Layer session-token="<t>"` (or single quotes) and `Bearer <t>`.
///
/// Every authenticated request comes through here, so it works on the header's bytes: everything
/// it looks for is ASCII, and walking `Character`s (grapheme breaking) cost a request a
/// microsecond for nothing.
enum SessionCredentials {
    static func token(fromAuthorization header: String?) -> String? {
        guard var header, header.utf8.count <= RequestLimits.maximumSessionTokenLength + 64 else { return nil }
        return header.withUTF8 { bytes in token(in: bytes[...]) }
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let doubleQuote = UInt8(ascii: "\"")
    private static let singleQuote = UInt8(ascii: "'")

    private static func token(in header: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        // Optional white space around a field value is spaces and tabs (RFC 9110 §5.5).
        var trimmed = header
        while let first = trimmed.first, first == space || first == tab { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == space || last == tab { trimmed = trimmed.dropLast() }
        let token: Slice<UnsafeBufferPointer<UInt8>>
        if let rest = trimmed.droppingPrefix(caseInsensitive: "bearer ") {
            token = rest.drop { $0 == space }
        } else if let rest = trimmed.droppingPrefix(caseInsensitive: "layer ") {
            let parameter = rest.drop { $0 == space }
            guard let value = parameter.droppingPrefix(caseInsensitive: "session-token="),
                let quote = value.first, quote == doubleQuote || quote == singleQuote,
                value.count >= 2, value.last == quote
            else { return nil }
            token = value.dropFirst().dropLast()
        } else {
            return nil
        }
        guard !token.isEmpty, token.count <= RequestLimits.maximumSessionTokenLength,
            !token.contains(where: { $0 == space || $0 == doubleQuote || $0 == singleQuote })
        else { return nil }
        // Cut only next to ASCII bytes, so what is left of valid UTF-8 is valid UTF-8.
        return String(decoding: token, as: UTF8.self)
    }
}

extension Slice<UnsafeBufferPointer<UInt8>> {
    /// The rest after a lower-case ASCII `prefix` matched without regard to ASCII case (the scheme
    /// and parameter names of an `Authorization` header are case-insensitive ASCII).
    func droppingPrefix(caseInsensitive prefix: StaticString) -> Self? {
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard count >= expected.count else { return nil }
        var index = startIndex
        for byte in expected {
            let actual = self[index]
            guard actual == byte || ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(actual) && actual + 32 == byte) else {
                return nil
            }
            index += 1
        }
        return self[index...]
    }
}
