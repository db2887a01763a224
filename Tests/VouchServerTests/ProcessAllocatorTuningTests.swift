import Foundation
import Testing
import VouchServer

/// `vouch serve` starts itself again with glibc's thread caches deepened (`AllocatorTuning`), in
/// place, and leaves an operator's own `GLIBC_TUNABLES` alone.
@Suite("vouch serve allocator tuning", .serialized, .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
       .timeLimit(.minutes(3)))
struct ProcessAllocatorTuningTests {
    /// The environment the running process `pid` was started with (its last `execve`).
    private static func environment(of pid: Int32) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("the relaunch environment adds the tunable only when GLIBC_TUNABLES is not set")
    func relaunchEnvironment() {
        #if canImport(Glibc)
        #expect(AllocatorTuning.relaunchEnvironment(["PATH": "/bin"]) == ["PATH": "/bin", "GLIBC_TUNABLES": AllocatorTuning.tunables])
        #endif
        #expect(AllocatorTuning.relaunchEnvironment(["GLIBC_TUNABLES": ""]) == nil)
        #expect(AllocatorTuning.relaunchEnvironment(["GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]) == nil)
    }

    @Test("the server runs tuned, as the process it was started as, and serves")
    func runsTuned() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer()
            #expect(try Self.environment(of: server.child.pid).contains("GLIBC_TUNABLES=\(AllocatorTuning.tunables)"),
                    "the process started by the test (same pid) now runs with the tunable")
            _ = try await server.makeAppAndProvider()
            #expect(try await server.child.stop() == .exited(0))
        }
    }

    @Test("an operator's GLIBC_TUNABLES, even empty, is kept as it is")
    func operatorDecides() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer(environment: ["GLIBC_TUNABLES": ""])
            let environment = try Self.environment(of: server.child.pid)
            #expect(environment.contains("GLIBC_TUNABLES="))
            #expect(!environment.contains { $0.contains("tcache_count") })
            #expect(try await server.child.stop() == .exited(0))
        }
    }
}
