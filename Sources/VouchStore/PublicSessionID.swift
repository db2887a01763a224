import Foundation

/// Makes a session's public id: a UUID of version 7 (RFC 9562), 48 bits of the millisecond it was
/// made then 74 random bits from the system's CSPRNG.
///
/// Time first, because the stores index sessions by this id: ids made together then land on the
/// same last pages of the index instead of each on a random page (docs/PERFORMANCE.md, "The
/// durable write"). It says when the session was made, which `created_at` says anyway, and nothing
/// of its token.
public enum PublicSessionID {
    public static func make(now: Date = Date()) -> UUID {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - index))) }
        for index in 6..<16 { bytes[index] = generator.next() }
        bytes[6] = (bytes[6] & 0x0F) | 0x70
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }
}
