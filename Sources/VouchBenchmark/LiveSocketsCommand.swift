import Foundation
import VouchCutoffRace
import VouchLiveTestSupport

/// `vouch-benchmark live-sockets`: many idle authenticated sockets on one running `vouch serve`
/// (its process id given, to read its memory and CPU from /proc), then a cutoff of their app: the
/// server's resident memory per socket, its CPU while they idle, how fast every socket hears the
/// cutoff, and the peak rate at which the clients, honouring `answer_after_ms`, would ask the
/// app's backend for identity tokens.
struct LiveSocketsCommand {
    let api: BenchmarkAPI
    let serverPort: Int
    let serverPID: Int32
    let sockets: Int
    let idleSeconds: Int

    func run() async throws {
        let world = try await api.setUp()
        print("signing in \(sockets) sessions…")
        let tokens = try await inParallel(sockets, width: 32) { _ in try await api.signIn(world) }
        let before = try ProcessFacts(pid: serverPID)
        print("opening \(sockets) sockets…")
        let opened = try await inParallel(sockets, width: 64) { index -> LiveSocketClient in
            let socket = try await LiveSocketClient.open(port: serverPort, headers: ["Authorization": "Bearer \(tokens[index])"])
            guard await socket.nextObject(timeout: .seconds(60))?["type"] as? String == "ready" else {
                throw BenchmarkError("socket \(index) did not get ready")
            }
            return socket
        }
        try await Task.sleep(for: .seconds(2))
        let open = try ProcessFacts(pid: serverPID)
        let perSocket = Double(open.residentBytes - before.residentBytes) / Double(sockets)
        print(
            String(
                format: "resident memory: %.1f MB before, %.1f MB with %d sockets open: %.1f KB a socket",
                Double(before.residentBytes) / 1e6, Double(open.residentBytes) / 1e6, sockets, perSocket / 1024))

        let idleStart = try ProcessFacts(pid: serverPID)
        try await Task.sleep(for: .seconds(idleSeconds))
        let idleEnd = try ProcessFacts(pid: serverPID)
        let idleCPU = idleEnd.cpuSeconds - idleStart.cpuSeconds
        print(
            String(
                format: "idle for %d s: %.2f s of CPU (%.2f%% of one core; the server pings each socket every 30 s)",
                idleSeconds, idleCPU, idleCPU / Double(idleSeconds) * 100))

        let cutoffReturned = try await api.cutOff(appID: world.appID)
        var delivered: [Duration] = []
        var asks: [Duration] = []
        var missed = 0
        for socket in opened {
            guard let frame = await socket.nextWithArrival(timeout: .seconds(30)),
                let object = try? JSONSerialization.jsonObject(with: Data(frame.text.utf8)) as? [String: Any],
                let after = object["answer_after_ms"] as? Int
            else {
                missed += 1
                continue
            }
            delivered.append(frame.at - cutoffReturned)
            asks.append(frame.at - cutoffReturned + .milliseconds(after))
        }
        print(
            "cutoff of the app: \(delivered.count) sockets heard it (\(missed) missed); after the cutoff returned: "
                + "p50 \(LiveReachReport.milliseconds(LiveReachReport.quantile(delivered, 0.5))), p99 \(LiveReachReport.milliseconds(LiveReachReport.quantile(delivered, 0.99))), "
                + "last \(LiveReachReport.milliseconds(delivered.max() ?? .zero))")
        print(
            "identity tokens the backend is asked for, by second: peak \(Self.peakPerSecond(asks)) a second with the spread, "
                + "\(Self.peakPerSecond(delivered)) a second without it")
        for socket in opened { await socket.close() }
    }

    /// The most identity-token requests that fall in any one-second bucket.
    static func peakPerSecond(_ offsets: [Duration]) -> Int {
        Dictionary(grouping: offsets) { $0.components.seconds }.values.map(\.count).max() ?? 0
    }

    /// `count` results of `work`, at most `width` at a time, in order.
    private func inParallel<Value: Sendable>(
        _ count: Int, width: Int, _ work: @escaping @Sendable (Int) async throws -> Value
    ) async throws -> [Value] {
        try await withThrowingTaskGroup(of: (Int, Value).self) { group in
            var results = [Value?](repeating: nil, count: count)
            var next = 0
            while next < min(width, count) {
                let index = next
                group.addTask { (index, try await work(index)) }
                next += 1
            }
            while let (index, value) = try await group.next() {
                results[index] = value
                if next < count {
                    let index = next
                    group.addTask { (index, try await work(index)) }
                    next += 1
                }
            }
            return results.compactMap { $0 }
        }
    }
}

/// A process's resident memory and CPU time, from /proc.
struct ProcessFacts {
    let residentBytes: Int
    let cpuSeconds: Double

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) })
        else { throw BenchmarkError("no VmRSS for process \(pid)") }
        residentBytes = kilobytes * 1024
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        guard let close = stat.lastIndex(of: ")") else { throw BenchmarkError("unreadable /proc/\(pid)/stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw BenchmarkError("unreadable /proc/\(pid)/stat")
        }
        cpuSeconds = (user + system) / ticks
    }
}
