import Foundation

/// UUIDs to and from their 8-4-4-4-12 hexadecimal text, by bytes.
///
/// Every request parses a few ids and every store call writes a few; Foundation's `UUID(uuidString:)`
/// and `uuidString.lowercased()` go through formatted scanning and case mapping, which showed in the
/// sign-in profile. These do the same job on 36 bytes.
enum UUIDText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Exactly 8-4-4-4-12 hexadecimal digits, any case; nothing else.
    static func parse(_ text: some StringProtocol) -> UUID? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var count = 0
        var offset = 0
        var high: UInt8?
        for character in text.utf8 {
            defer { offset += 1 }
            guard offset < 36 else { return nil }
            // The four dashes of the canonical spelling.
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                bytes[count] = first << 4 | nibble
                count += 1
                high = nil
            } else {
                high = nibble
            }
        }
        guard offset == 36, count == 16 else { return nil }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// The lower-case canonical spelling.
    static func lowercase(_ id: UUID) -> String {
        withUnsafeBytes(of: id.uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { output in
                var written = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    output[written] = hexDigits[Int(byte >> 4)]
                    output[written + 1] = hexDigits[Int(byte & 0x0F)]
                    written += 2
                }
                return written
            }
        }
    }
}
