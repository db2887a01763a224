/// Byte-for-byte comparisons for protocol text.
///
/// Swift's `String` compares by Unicode canonical equivalence, so `"layer-eit\u{037E}v=1"` (GREEK
/// QUESTION MARK) equals `"layer-eit;v=1"`, and `hasPrefix` works on characters, not bytes. Token
/// parameters and identifiers are byte strings by specification (RFC 7515 compares them
/// exactly); these helpers compare their UTF-8 exactly.
///
/// They are `@inlinable` so that the verifier, in another module, gets them specialised for
/// `String`: called through the generic witness tables they were a measurable part of a sign-in.
extension StringProtocol {
    /// Whether the UTF-8 bytes are exactly `other`'s.
    @inlinable
    public func bytesEqual(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8)
    }

    /// Whether the UTF-8 bytes start with `prefix`'s bytes.
    @inlinable
    public func bytesHavePrefix(_ prefix: some StringProtocol) -> Bool {
        utf8.starts(with: prefix.utf8)
    }

    /// The text after `prefix`, when the UTF-8 bytes start with it (and the rest is valid UTF-8,
    /// which it is whenever `prefix` ends on a character boundary of ASCII, as every protocol
    /// prefix does).
    @inlinable
    public func bytesDroppingPrefix(_ prefix: some StringProtocol) -> String? {
        guard bytesHavePrefix(prefix) else { return nil }
        return String(validating: utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}
