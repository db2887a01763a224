import Foundation
import Hummingbird
import Logging
import NIOCore
import VouchServer
import VouchStoreSQLite

/// Vouch's sign-in handler against the bare app's, in this process and without HTTP: the whole
/// `POST /sessions` of `vouch serve` (its middleware, the body's decode, every rule of the token,
/// the RS256 verify, the durable write on a real SQLite file with `synchronous=FULL`, the answer)
/// and the bare app's sign-in floor (the decode, one RS256 verify, an answer), each called through
/// its router from `concurrency` tasks on the same tokens, as CPU per sign-in by kind of thread.
///
/// The distance between the two is what Vouch adds to a sign-in beyond what any app must do, and
/// here it is measured without the sockets, the HTTP codec and the event loops around it, whose
/// run-to-run swings on this host are larger than most changes to Vouch. `POST /nonces` of both
/// is measured too, as a unit: the in-process ratios are a guide, not the (those are over
/// HTTP, docs/PERFORMANCE.md).
struct HandlerSignIns {
    let signIns: Int
    let concurrency: Int
    let rounds: Int

    func run() async throws {
        var logger = BareApp.logger
        logger.logLevel = .error
        try await ScratchStore.with(logger: logger) { store in try await run(store: store, logger: logger) }
    }

    private func run(store: SQLiteStore, logger: Logger) async throws {
        let admin = "benchmark-admin-token-0123456789abcdef"
        let app = try await VouchServer.makeApplication(
            configuration: ServerConfiguration(rateLimit: 0, adminToken: admin), store: store, logger: logger)
        let vouch = InProcessTransport(responder: try await app.responder, logger: logger)
        let api = BenchmarkAPI(transport: vouch, admin: admin)
        let world = try await api.setUp()
        let bare = InProcessTransport(
            responder: try BareApp.makeRouter(publicKeyPEM: world.publicKeyPEM).buildResponder(),
            logger: logger)

        print("in process, \(concurrency) tasks, \(rounds) rounds of \(signIns) sign-ins (tokens minted before each round)")
        var figures: [String: [Double]] = [:]
        for round in 1...rounds {
            let bodies = try await SignInPreparation.bodies(signIns, world: world, api: api).map { ByteBuffer(string: $0) }
            // A nonce costs a tenth of a sign-in: four times as many, so that both are read over
            // a comparable stretch of CPU time.
            let noBodies = [ByteBuffer?](repeating: nil, count: 4 * bodies.count)
            for (name, transport, path, requests) in [
                ("bare POST /nonces", bare as any Requester, "/nonces", noBodies),
                ("vouch POST /nonces", vouch as any Requester, "/nonces", noBodies),
                ("bare sign-in floor", bare as any Requester, "/sessions", bodies.map(Optional.some)),
                ("vouch sign-in", vouch as any Requester, "/sessions", bodies.map(Optional.some)),
            ] {
                let started = monotonicSeconds()
                let (cpu, lines) = try await measure(requests, path: path, on: transport)
                figures[name, default: []].append(cpu)
                // The window on CLOCK_MONOTONIC, for `perf record -k CLOCK_MONOTONIC` and
                // `perf report --time START,END` (the minting around it is the backend's work).
                print(
                    String(
                        format: "round %d  %-20@ %7.1f µs CPU a request  (monotonic %.6f,%.6f)",
                        round, name as NSString, cpu, started, monotonicSeconds()))
                for line in lines { print("    " + line) }
            }
        }
        func median(_ name: String) -> Double { figures[name, default: [0]].sorted()[figures[name, default: [0]].count / 2] }
        let unit = median("bare POST /nonces")
        print(
            String(
                format:
                    "median: vouch sign-in %.1f µs, bare sign-in floor %.1f µs, vouch beyond the floor %.1f µs (%.2f × the bare POST /nonces, %.1f µs); vouch POST /nonces %.2f ×",
                median("vouch sign-in"), median("bare sign-in floor"), median("vouch sign-in") - median("bare sign-in floor"),
                (median("vouch sign-in") - median("bare sign-in floor")) / unit, unit, median("vouch POST /nonces") / unit))
    }

    private func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// CPU per request of this process (every thread: the responder's tasks, the store's writer)
    /// while `concurrency` tasks send `requests`, each expecting a 2xx answer; and the split by
    /// kind of thread.
    private func measure(_ requests: [ByteBuffer?], path: String, on transport: any Requester) async throws -> (Double, [String]) {
        let next = NextIndex(below: requests.count)
        let before = ThreadCPU.sample()
        let cpuBefore = Measurement.processCPUSeconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while let index = next.take() {
                        let headers: HTTPFields = requests[index] == nil ? [:] : [.contentType: "application/json"]
                        let (status, body) = try await transport.respond(.post, path, headers: headers, body: requests[index])
                        guard (200..<300).contains(status.code) else {
                            throw BenchmarkError("POST \(path) answered \(status.code): \(String(buffer: body))")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // The whole from getrusage (microseconds), the split from /proc (clock ticks).
        let cpu = (Measurement.processCPUSeconds() - cpuBefore) * 1e6 / Double(requests.count)
        let after = ThreadCPU.sample()
        return (cpu, ThreadCPU.lines(from: before, to: after, per: requests.count))
    }
}
