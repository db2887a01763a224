import Foundation
import VouchSupport

/// The `layer:///…` identifiers of PROTOCOL §1.
///
/// Output is always the canonical, lower-case URI; input also accepts the bare UUID in any case,
/// because operators paste ids from dashboards and logs in whatever form they found them.
public enum LayerID {
    static let appPrefix = "layer:///apps/"
    static let providerPrefix = "layer:///providers/"
    public static let keyPrefix = "layer:///keys/"
    static let identityPrefix = "layer:///identities/"

    public static func app(_ id: UUID) -> String { appPrefix + id.lowercased }
    public static func provider(_ id: UUID) -> String { providerPrefix + id.lowercased }
    public static func key(_ id: UUID) -> String { keyPrefix + id.lowercased }

    /// The identity URI of a user id, percent-escaped so that any UTF-8 user id yields one valid URI.
    ///
    /// Every UTF-8 byte outside RFC 3986's unreserved characters is written `%XX` (upper-case hex),
    /// as Foundation's `addingPercentEncoding(withAllowedCharacters:)` writes it with the unreserved
    /// set, but by bytes (a test holds the two equal). The URI is written once, prefix included,
    /// into a string of the exact length: every sign-in's answer names its user this way, and
    /// building it from a hex table, a byte array and a concatenation would allocate for each.
    public static func identity(_ userID: String) -> String {
        let prefix = identityPrefix.utf8
        var escapedCount = 0
        for byte in userID.utf8 { escapedCount += isUnreserved(byte) ? 1 : 3 }
        return String(unsafeUninitializedCapacity: prefix.count + escapedCount) { buffer in
            var index = 0
            for byte in prefix {
                buffer[index] = byte
                index += 1
            }
            for byte in userID.utf8 {
                if isUnreserved(byte) {
                    buffer[index] = byte
                    index += 1
                } else {
                    buffer[index] = UInt8(ascii: "%")
                    buffer[index + 1] = HexDigit.uppercase(byte >> 4)
                    buffer[index + 2] = HexDigit.uppercase(byte & 0x0F)
                    index += 3
                }
            }
            return index
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Parses `layer:///apps/<uuid>` or a bare UUID.
    public static func parseApp(_ text: String) -> UUID? { parse(text, prefix: appPrefix) }
    /// Parses `layer:///providers/<uuid>` or a bare UUID.
    public static func parseProvider(_ text: String) -> UUID? { parse(text, prefix: providerPrefix) }
    /// Parses `layer:///keys/<uuid>` or a bare UUID.
    public static func parseKey(_ text: String) -> UUID? { parse(text, prefix: keyPrefix) }

    /// A UUID in its 8-4-4-4-12 hexadecimal spelling, any case; nothing else. Inlinable, so that
    /// another module's call is specialised for its string type (see `UUIDText`).
    @inlinable
    public static func parseUUID(_ text: some StringProtocol) -> UUID? {
        UUIDText.parse(text)
    }

    /// The same over bytes where they lie (an id inside a claim, after its prefix).
    package static func parseUUID(utf8: UnsafeBufferPointer<UInt8>) -> UUID? {
        UUIDText.parse(utf8: utf8)
    }

    static func parse(_ text: String, prefix: String) -> UUID? {
        if let rest = text.bytesAfterPrefix(prefix) { return parseUUID(rest) }
        return parseUUID(text)
    }
}

extension UUID {
    /// The lower-case spelling PROTOCOL §1 prescribes for output.
    public var lowercased: String { UUIDText.lowercase(self) }

}
