/// RFC 4648 §5 base64url without padding, decoded strictly: one text per byte string.
///
/// Padding, whitespace, the `+`/`/` alphabet and non-zero trailing bits are refused, so that no
/// two spellings of one token exist (the verification cache keys on the token's text).
enum Base64URL {
    /// The 6-bit value of each ASCII byte, 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        return table
    }()

    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let remainder = text.count % 4
        guard remainder != 1 else { return nil }
        var output = [UInt8]()
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text {
            let value = values[Int(byte)]
            guard value != 0xFF else { return nil }
            accumulator = (accumulator << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // The bits left over must be zero: `AB` and `AC` would otherwise both decode to one byte.
        guard accumulator == 0 else { return nil }
        return output
    }
}
