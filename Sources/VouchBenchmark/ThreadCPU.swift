import Foundation

/// This process's CPU time by kind of thread, read from `/proc/self/task`: the same split that
/// `scripts/bench.py` prints for the server (the writer runs on libdispatch's overcommit threads,
/// tasks on Swift's pool), for the measurements that run in this process.
struct ThreadCPU {
    /// Per thread id: its kind, user and system seconds.
    let threads: [String: (kind: String, user: Double, system: Double)]

    static func sample() -> ThreadCPU {
        var threads: [String: (kind: String, user: Double, system: Double)] = [:]
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            // After the name: state, then fields 4… of proc(5); utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            threads[tid] = (kind(of: name), user / ticks, system / ticks)
        }
        return ThreadCPU(threads: threads)
    }

    /// µs of user and system CPU per operation, by kind, and their sum.
    static func lines(from before: ThreadCPU, to after: ThreadCPU, per operations: Int) -> [String] {
        var kinds: [String: (user: Double, system: Double)] = [:]
        for (tid, thread) in after.threads {
            let start = before.threads[tid] ?? (thread.kind, 0, 0)
            let sum = kinds[thread.kind] ?? (0, 0)
            kinds[thread.kind] = (sum.user + thread.user - start.user, sum.system + thread.system - start.system)
        }
        let scale = 1e6 / Double(max(operations, 1))
        // Kinds of thread that did nothing measurable (no event loops in process) are left out.
        var lines = kinds.filter { $0.value.user + $0.value.system > 0 }.sorted { $0.key < $1.key }.map { kind, time in
            String(format: "%@: %.1f µs user + %.1f µs system an operation", kind, time.user * scale, time.system * scale)
        }
        let total = kinds.values.reduce(0) { $0 + $1.user + $1.system }
        lines.append(String(format: "whole process: %.1f µs CPU an operation", total * scale))
        return lines
    }

    private static func kind(of name: String) -> String {
        if name.contains("overcommit") { return "dispatch queues (SQLite writer, checkpointer)" }
        if name.contains("default-qos") { return "Swift concurrency pool" }
        if name.hasPrefix("NIO-") { return "event loops" }
        return "other (\(name))"
    }
}
