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
        if let parsed = text.utf8.withContiguousStorageIfAvailable(parse(utf8:)) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer(parse(utf8:))
    }

    static func parse(utf8 text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &uuid) { output -> Bool in
            var written = 0
            var offset = 0
            while offset < 36 {
                // The four dashes of the canonical spelling; every group between them has an even
                // number of digits, so a byte's two digits never straddle a dash.
                if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                    guard text[offset] == UInt8(ascii: "-") else { return false }
                    offset += 1
                    continue
                }
                guard let high = nibble(text[offset]), let low = nibble(text[offset + 1]) else { return false }
                output[written] = high << 4 | low
                written += 1
                offset += 2
            }
            return true
        }
        return parsed ? UUID(uuid: uuid) : nil
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
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
