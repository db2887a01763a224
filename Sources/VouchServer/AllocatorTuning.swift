#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// glibc's per-thread cache of freed blocks, made deep enough for a server whose requests are
/// built on one thread and finished on another.
///
/// A sign-in allocates on a pool thread, and its durable write is done, and partly freed, on the
/// SQLite writer's thread (and the other way round for what the writer hands back). glibc keeps
/// only 7 freed blocks of each size per thread by default; past that a free goes to the shared
/// arena, under its lock, and the next allocation of that size on the other thread goes there too.
/// With 64 a storm's blocks stay in the threads' caches: in `vouch-benchmark handler` a sign-in
/// cost ~8 µs less CPU (docs/PERFORMANCE.md, 2026-11-26, morning), for at most a few hundred KB
/// of cached blocks per thread.
///
/// The cache's depth is a glibc *tunable*, read once when the process starts: it cannot be set
/// from inside. So `vouch serve` starts itself again, in place (`execve` keeps its process id,
/// arguments and open standard streams), with the tunable in its environment, unless
/// `GLIBC_TUNABLES` is already there: an operator who sets it (even to nothing) decides.
public enum AllocatorTuning {
    public static let environmentVariable = "GLIBC_TUNABLES"
    public static let tunables = "glibc.malloc.tcache_count=64"

    /// The environment to start again with, or nil when the process should go on as it is
    /// (tunables already chosen, or not a glibc system).
    public static func relaunchEnvironment(_ environment: [String: String]) -> [String: String]? {
        #if canImport(Glibc)
        guard environment[environmentVariable] == nil else { return nil }
        var tuned = environment
        tuned[environmentVariable] = tunables
        return tuned
        #else
        return nil
        #endif
    }

    /// Replaces this process with itself, started with `relaunchEnvironment`; returns (having
    /// changed nothing) when there is nothing to do or the start fails, so that the server runs
    /// untuned rather than not at all.
    public static func relaunchIfUntuned(environment: [String: String] = ProcessInfo.processInfo.environment) {
        #if canImport(Glibc)
        guard let tuned = relaunchEnvironment(environment) else { return }
        let entries = tuned.map { "\($0.key)=\($0.value)" }
        var environmentPointers = entries.map { strdup($0) } + [nil]
        defer { for pointer in environmentPointers { free(pointer) } }
        // The executable itself, however it was named on the command line (a relative path, or
        // found through PATH); the arguments exactly as they came.
        execve("/proc/self/exe", CommandLine.unsafeArgv, &environmentPointers)
        #endif
    }
}
