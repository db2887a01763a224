import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Runs an operation repeatedly for about `seconds` and reports operations per second and the
/// mean time per operation. Wall-clock, single task unless the operation itself fans out.
struct Measurement {
    let name: String
    let operations: Int
    let elapsed: Duration
    /// CPU seconds (user + system) this whole process used during the measurement: the server and
    /// the client driving it, not a database server in another process.
    let cpuSeconds: Double

    var perSecond: Double { Double(operations) / elapsed.inSeconds }

    var cpuMicros: Double { cpuSeconds * 1e6 / Double(max(operations, 1)) }

    var line: String {
        let micros = 1e6 / perSecond
        return
            "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%10.0f", perSecond)) ops/s  \(String(format: "%9.1f", micros)) µs/op  \(String(format: "%8.1f", cpuMicros)) µs CPU/op  (n=\(operations))"
    }

    static func run(_ name: String, seconds: Double, batch: Int = 1, _ operation: () async throws -> Void) async throws -> Measurement {
        // Warm up: caches, lazy initialisation, connection set-up.
        for _ in 0..<3 { try await operation() }
        let clock = ContinuousClock()
        let cpuStart = processCPUSeconds()
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        var operations = 0
        while clock.now < deadline {
            try await operation()
            operations += batch
        }
        return Measurement(
            name: name, operations: operations, elapsed: clock.now - start,
            cpuSeconds: processCPUSeconds() - cpuStart)
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

extension Duration {
    /// The duration as fractional seconds, for the benchmark's printed rates and times.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
