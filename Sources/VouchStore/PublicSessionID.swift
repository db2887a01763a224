import Foundation

/// Makes a session's public id: a UUID of version 7 (RFC 9562), 48 bits of the millisecond it was
/// made then 74 random bits from the system's CSPRNG.
///
/// Time first, because the stores index sessions by this id: ids made together then land on the
/// same last pages of the index instead of each on a random page (docs/PERFORMANCE.md, "The
/// durable write"). It says when the session was made, which `created_at` says anyway, and nothing
/// of its token.
public enum PublicSessionID {
    /// - Parameters:
    ///   - now: the time the id leads with (the session's making).
    ///   - fillRandom: fills the buffer from a CSPRNG. The server passes its own, which reads the
    ///     10 bytes in one system call where the standard library's generator makes two.
    public static func make(
        now: Date = Date(), fillRandom: (UnsafeMutableRawBufferPointer) -> Void = standardLibraryRandom
    ) -> UUID {
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
            fillRandom(UnsafeMutableRawBufferPointer(rebasing: bytes[6...]))
            bytes[6] = (bytes[6] & 0x0F) | 0x70
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        return UUID(uuid: uuid)
    }

    /// The standard library's CSPRNG, eight bytes at a time.
    public static func standardLibraryRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        var filled = 0
        while filled < buffer.count {
            withUnsafeBytes(of: generator.next() as UInt64) { word in
                let take = min(word.count, buffer.count - filled)
                for index in 0..<take { buffer[filled + index] = word[index] }
                filled += take
            }
        }
    }
}
