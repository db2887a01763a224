import Foundation

/// Parses the two `Authorization` forms of PROTOCOL §3:
/// `Layer session-token="<t>"` (or single quotes) and `Bearer <t>`.
enum SessionCredentials {
    static func token(fromAuthorization header: String?) -> String? {
        guard let header, header.utf8.count <= RequestLimits.maximumSessionTokenLength + 64 else { return nil }
        // Optional white space around a field value is spaces and tabs (RFC 9110 §5.5).
        var trimmed = Substring(header)
        while let first = trimmed.utf8.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { trimmed = trimmed.dropFirst() }
        while let last = trimmed.utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { trimmed = trimmed.dropLast() }
        let token: Substring
        if let rest = trimmed.dropPrefix(caseInsensitive: "Bearer ") {
            token = rest.drop { $0 == " " }
        } else if let rest = trimmed.dropPrefix(caseInsensitive: "Layer ") {
            let parameter = rest.drop { $0 == " " }
            guard let value = parameter.dropPrefix(caseInsensitive: "session-token="),
                  let quote = value.first, quote == "\"" || quote == "'",
                  value.count >= 2, value.last == quote else { return nil }
            token = value.dropFirst().dropLast()
        } else {
            return nil
        }
        guard !token.isEmpty, token.utf8.count <= RequestLimits.maximumSessionTokenLength,
              !token.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" }) else { return nil }
        return String(token)
    }
}

extension StringProtocol {
    /// The rest after an ASCII `prefix` matched without regard to ASCII case (the scheme and
    /// parameter names of an `Authorization` header are case-insensitive ASCII).
    func dropPrefix(caseInsensitive prefix: String) -> SubSequence? {
        func lower(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }
        var index = utf8.startIndex
        for expected in prefix.utf8 {
            guard index != utf8.endIndex, lower(utf8[index]) == lower(expected) else { return nil }
            index = utf8.index(after: index)
        }
        return self[index...]
    }
}
