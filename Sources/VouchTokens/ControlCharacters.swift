/// Whether text holds a control character (Unicode category Cc: U+0000–U+001F, U+007F–U+009F),
/// which no claim, user id or nonce may contain.
///
/// Cc is exactly those 65 code points, so the check needs no Unicode property table: ASCII bytes
/// are compared directly and only the two-byte sequences C2 80…C2 9F (U+0080–U+009F) remain. It
/// runs on every string claim of every sign-in, where the property lookup per scalar was a
/// measurable part of verifying a token.
enum ControlCharacters {
    static func present(in text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(present(inUTF8:)) ?? present(inUTF8: text.utf8)
    }

    private static func present(inUTF8 bytes: some Sequence<UInt8>) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F { return true }
            if previous == 0xC2 && (0x80...0x9F).contains(byte) { return true }
            previous = byte
        }
        return false
    }
}
