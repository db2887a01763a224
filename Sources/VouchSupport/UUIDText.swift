import Foundation

/// UUIDs to and from their 8-4-4-4-12 hexadecimal text, by bytes.
///
/// Every request parses a few ids and every store call writes a few; Foundation's `UUID(uuidString:)`
/// and `uuidString.lowercased()` go through formatted scanning and case mapping for that. These do
/// the same job on 36 bytes.
///
/// The generic entry points are inlinable (and what they call usable from inline code) so that a
/// caller in another module gets them specialised for its string type and result, rather than
/// calling the generic code through metadata looked up at run time.
public enum UUIDText {
    /// Exactly 8-4-4-4-12 hexadecimal digits, any case; nothing else.
    @inlinable
    public static func parse(_ text: some StringProtocol) -> UUID? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable(parse(utf8:)) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer(parse(utf8:))
    }

    public static func parse(utf8 text: UnsafeBufferPointer<UInt8>) -> UUID? {
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
    public static func lowercase(_ id: UUID) -> String {
        String(unsafeUninitializedCapacity: 36) { output in write(id, into: output) }
    }

    /// Writes the lower-case canonical spelling into the first 36 bytes of `output` (which must
    /// hold them) and returns 36: for a caller that needs the text only for a moment (an SQLite
    /// bind copies it), without a `String` on the heap.
    ///
    /// The digits are computed, not looked up in a table: a table kept in a `static let` is
    /// reached through its lazy initialiser's check on every digit, 32 calls a UUID.
    @discardableResult
    public static func write(_ id: UUID, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        precondition(output.count >= 36, "a UUID's text is 36 bytes")
        return withUnsafeBytes(of: id.uuid) { raw in
            var written = 0
            for (index, byte) in raw.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    output[written] = UInt8(ascii: "-")
                    written += 1
                }
                output[written] = HexDigit.lowercase(byte >> 4)
                output[written + 1] = HexDigit.lowercase(byte & 0x0F)
                written += 2
            }
            return written
        }
    }
}

extension UUID {
    /// The lower-case spelling PROTOCOL §1 prescribes, lent for the length of `body` from a stack buffer: for
    /// a caller that copies it at once (an SQLite bind), without a string on the heap. Inlinable,
    /// so that the caller's body and result are not reached through generic code (see `UUIDText`).
    @inlinable
    public func withLowercasedUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { buffer in
            let count = UUIDText.write(self, into: buffer)
            return try body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

}
