import Foundation

/// Byte-for-byte comparisons for protocol text.
///
/// Swift's `String` compares by Unicode canonical equivalence, so `"layer-eit\u{037E}v=1"` (GREEK
/// QUESTION MARK) equals `"layer-eit;v=1"`, and `hasPrefix` works on characters, not bytes. Token
/// parameters and identifiers are byte strings by specification (RFC 7515 compares them
/// exactly); these helpers compare their UTF-8 exactly.
///
/// They are `@inlinable` so that the verifier, in another module, gets them specialised for
/// `String` instead of calling through generic witness tables on every comparison of a sign-in.
extension StringProtocol {
    /// Whether the UTF-8 bytes are exactly `other`'s.
    @inlinable
    public func bytesEqual(_ other: some StringProtocol) -> Bool {
        if let answer = withContiguousBytes(other, { mine, theirs in mine.count == theirs.count && sameBytes(mine, theirs, count: theirs.count) }) {
            return answer
        }
        return utf8.elementsEqual(other.utf8)
    }

    /// Whether the UTF-8 bytes start with `prefix`'s bytes.
    @inlinable
    public func bytesHavePrefix(_ prefix: some StringProtocol) -> Bool {
        if let answer = withContiguousBytes(
            prefix,
            { mine, theirs in
                mine.count >= theirs.count && sameBytes(mine, theirs, count: theirs.count)
            })
        {
            return answer
        }
        return utf8.starts(with: prefix.utf8)
    }

    /// The text after `prefix`, when the UTF-8 bytes start with it (and the rest is valid UTF-8,
    /// which it is whenever `prefix` ends on a character boundary of ASCII, as every protocol
    /// prefix does).
    @inlinable
    public func bytesDroppingPrefix(_ prefix: some StringProtocol) -> String? {
        if let answer = withContiguousBytes(
            prefix,
            { mine, theirs -> String?? in
                guard mine.count >= theirs.count, sameBytes(mine, theirs, count: theirs.count) else {
                    return .some(nil)
                }
                // Valid UTF-8 less a prefix that is itself whole characters is valid UTF-8: decoding
                // cannot repair anything here, and skips the generic validation.
                return .some(String(decoding: UnsafeBufferPointer(rebasing: mine[theirs.count...]), as: UTF8.self))
            })
        {
            return answer ?? nil
        }
        guard utf8.starts(with: prefix.utf8) else { return nil }
        return String(validating: utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}

extension String {
    /// The text after `prefix`, when the UTF-8 bytes start with it, as a view of this string
    /// rather than a copy: for a prefix that is only looked past (an id after `layer:///keys/`),
    /// once a request. `prefix` must end where a Unicode scalar does, as every ASCII prefix does.
    @inlinable
    public func bytesAfterPrefix(_ prefix: some StringProtocol) -> Substring? {
        guard bytesHavePrefix(prefix) else { return nil }
        return self[utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count)...]
    }
}

extension StringProtocol {
    /// Both texts' UTF-8 as buffers, when both are stored contiguously (native strings and their
    /// substrings are): comparing buffers is a tight loop, where the views' iterators are not.
    @inlinable
    func withContiguousBytes<Answer>(
        _ other: some StringProtocol, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Answer
    ) -> Answer? {
        utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in body(mine, theirs) }
        } ?? nil
    }
}

/// The first `count` bytes of both buffers are equal: `memcmp`, which compares many bytes at a
/// time, where `elementsEqual` goes one by one. Names of a few bytes (`iss`, `kid`) are compared
/// in place: a call into the C library costs more than they do.
@inlinable
func sameBytes(_ mine: UnsafeBufferPointer<UInt8>, _ theirs: UnsafeBufferPointer<UInt8>, count: Int) -> Bool {
    guard count > 0, let left = mine.baseAddress, let right = theirs.baseAddress else { return true }
    if count <= 16 {
        var difference: UInt8 = 0
        for index in 0..<count { difference |= left[index] ^ right[index] }
        return difference == 0
    }
    return memcmp(left, right, count) == 0
}
