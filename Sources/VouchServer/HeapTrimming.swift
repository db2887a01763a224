#if canImport(Glibc)
    import Glibc
#endif
import Foundation

/// How much freed memory glibc's allocator may keep at the top of a heap before handing it back
/// to the kernel.
///
/// By default glibc gives memory back as soon as 128 KiB lie free at the top of a thread's heap,
/// with `madvise`, and every such call makes the kernel flush the other cores' address
/// translations (an inter-processor interrupt each). A server whose request threads allocate and
/// free in waves pays for this on every wave, a visible share of a durable sign-in's CPU
/// (docs/PERFORMANCE.md, "The request path"). Keeping up to `defaultThreshold` free per heap
/// instead costs at most that much resident memory per heap, memory the process had in use a
/// moment before. `vouch serve` applies it at start.
package enum HeapTrimming {
    package static let defaultThreshold = 32 * 1024 * 1024
    /// glibc's own setting: when an operator sets it, it wins.
    package static let environmentVariable = "MALLOC_TRIM_THRESHOLD_"

    /// Applies `defaultThreshold` unless the environment already chose one. Returns the threshold
    /// applied, or `nil` when nothing was changed (another C library, or the operator's choice).
    @discardableResult
    package static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        guard environment[environmentVariable] == nil else { return nil }
        #if canImport(Glibc)
            // `mallopt` is declared in <malloc.h>, which the Glibc module does not map: found by name,
            // so that a C library without it (musl) simply keeps its own behaviour.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return nil }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
            return mallopt(trimThresholdParameter, Int32(defaultThreshold)) == 1 ? defaultThreshold : nil
        #else
            return nil
        #endif
    }

    /// `M_TRIM_THRESHOLD` in <malloc.h>.
    private static let trimThresholdParameter: Int32 = -1
}
