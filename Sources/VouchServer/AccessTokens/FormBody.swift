/// An `application/x-www-form-urlencoded` body (the WHATWG URL standard's parser): `name=value`
/// pairs joined by `&`, `+` for a space, `%XX` for a byte. Strict where leniency would hide a
/// client's mistake: a name given twice, a `%` not followed by two hex digits, or bytes that are
/// not UTF-8 once decoded make the whole body invalid (RFC 6749 §3.1: no parameter twice).
enum FormBody {
    /// The pairs, or `nil` when the body breaks one of the rules above.
    static func parse(_ bytes: [UInt8]) -> [String: String]? {
        var pairs: [String: String] = [:]
        for field in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = field.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : []) else { return nil }
            guard pairs[name] == nil else { return nil }
            pairs[name] = value
        }
        return pairs
    }

    private static func decode(_ encoded: ArraySlice<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let byte = encoded[index]
            switch byte {
            case UInt8(ascii: "+"):
                output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 2 < encoded.endIndex,
                    let high = hexValue(encoded[index + 1]), let low = hexValue(encoded[index + 2])
                else { return nil }
                output.append(high << 4 | low)
                index += 2
            default:
                output.append(byte)
            }
            index += 1
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
