import Foundation

/// The microsecond something was made, as eight big-endian bytes that lead a key: keys made one
/// after another then sort one after another, and a B-tree appends them where the last ones went
/// instead of on a random page (session tokens; docs/PERFORMANCE.md, "The durable write").
///
/// The second is the server clock's (a test's clock may be anywhere); the microsecond within it is
/// the machine's, so that what is made within one second is ordered too. Only the order matters,
/// and only for where a key lands: nothing reads a stamp back as a time, so a clock that steps
/// back puts a few keys out of place and nothing worse.
enum MicrosecondStamp {
    /// `now` seconds and `microsecond` (0…999 999) as microseconds since the Unix epoch, clamped to
    /// 0…UInt64.max for clocks far off.
    static func make(now: Int64, microsecond: Int64 = currentMicrosecondWithinSecond()) -> UInt64 {
        let (scaled, overflow) = now.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return now > 0 ? .max : 0 }
        let (stamp, overflowAgain) = scaled.addingReportingOverflow(microsecond)
        if overflowAgain { return .max }
        return UInt64(clamping: stamp)
    }

    /// 0…999 999: the machine's wall clock below the second.
    static func currentMicrosecondWithinSecond() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_nsec / 1000)
    }

    static let byteCount = 8
}
