import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// `webhook-latency`: how long a security event takes from its commit to a receiver's 200
/// (PROTOCOL §8.17), under a steady load of events. A receiver in this process subscribes to
/// `session.created`; sign-ins are sent at `rate` a second for `seconds`, each timed from the
/// moment its request leaves (before the commit, so the figure is an upper bound) to the moment
/// its event arrives. The server must run with `--allow-loopback-outbound`.
struct WebhookLatency {
    let api: BenchmarkAPI
    let rate: Int
    let seconds: Int

    func run() async throws {
        let world = try await api.setUp()
        let count = rate * seconds
        print("minting \(count) sign-ins…")
        let bodies = try await SignInPreparation.bodies(count, world: world, api: api)
        let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            if let event = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                let data = event["data"] as? [String: Any], let session = data["session_id"] as? String
            {
                let now = ContinuousClock.now
                arrivals.withLock { if $0[session] == nil { $0[session] = now } }
            }
            return Response(status: .ok)
        }
        let port = Mutex(0)
        let listening = AsyncStream.makeStream(of: Void.self)
        var logger = Logger(label: "receiver")
        logger.logLevel = .critical
        let receiver = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                port.withLock { $0 = channel.localAddress?.port ?? 0 }
                listening.continuation.finish()
            }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await receiver.runService() }
            for await _ in listening.stream {}
            try await api.subscribe(
                appID: world.appID, url: "http://127.0.0.1:\(port.withLock { $0 })/hook", events: ["session.created"])
            let (sent, answered) = try await send(bodies)
            let deadline = ContinuousClock.now + .seconds(60)
            while arrivals.withLock({ $0.count }) < sent.count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let latencies = arrivals.withLock { arrived in
                sent.compactMap { session, at in arrived[session].map { $0 - at } }
            }.sorted()
            report(latencies, sent: sent.count)
            let signIns = sent.compactMap { session, at in answered[session].map { $0 - at } }.sorted()
            print(String(format: "the sign-ins alone (request to 201) ms: p50 %.1f, p99 %.1f", Self.percentile(signIns, 0.5), Self.percentile(signIns, 0.99)))
            group.cancelAll()
        }
    }

    /// Sends every body on its schedule; the send time of each session that was created, and the
    /// time its 201 came back.
    private func send(_ bodies: [String]) async throws -> (sent: [String: ContinuousClock.Instant], answered: [String: ContinuousClock.Instant]) {
        let started = ContinuousClock.now
        let interval = Duration.seconds(1) / rate
        return try await withThrowingTaskGroup(of: (String, ContinuousClock.Instant, ContinuousClock.Instant).self) { group in
            for (index, body) in bodies.enumerated() {
                try await Task.sleep(until: started + interval * index, clock: .continuous)
                group.addTask {
                    let at = ContinuousClock.now
                    let session = try await api.signIn(body: body)
                    return (session, at, ContinuousClock.now)
                }
            }
            var sent: [String: ContinuousClock.Instant] = [:]
            var answered: [String: ContinuousClock.Instant] = [:]
            for try await (session, at, answer) in group {
                sent[session] = at
                answered[session] = answer
            }
            let took = ContinuousClock.now - started
            print("sent \(sent.count) sign-ins in \(took) (\(Int(Double(sent.count) / took.inSeconds)) a second)")
            return (sent, answered)
        }
    }

    /// The `fraction` percentile of sorted `durations`, in milliseconds.
    static func percentile(_ durations: [Duration], _ fraction: Double) -> Double {
        guard !durations.isEmpty else { return .nan }
        return durations[min(durations.count - 1, Int(Double(durations.count - 1) * fraction))].inSeconds * 1_000
    }

    private func report(_ latencies: [Duration], sent: Int) {
        func percentile(_ fraction: Double) -> Double { Self.percentile(latencies, fraction) }
        print(
            String(
                format: "events delivered %d of %d; commit→200 ms: p50 %.1f, p99 %.1f, max %.1f (target: p99 < 2000 at %d a second)",
                latencies.count, sent, percentile(0.5), percentile(0.99), percentile(1), rate))
    }
}
