/// One hexadecimal digit as an ASCII byte, computed rather than read from a table: a stored table
/// is a lazy global, checked on every read, and these are written a few dozen times a request
/// (a UUID's text, a user's percent-escaped identity URI).
public enum HexDigit {
    /// `0`–`9`, `a`–`f`: UUIDs, as every id in the protocol is written.
    @inline(__always)
    public static func lowercase(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }

    /// `0`–`9`, `A`–`F`: percent-escapes, as Foundation writes them.
    @inline(__always)
    public static func uppercase(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") - 10 + nibble
    }
}
