import Foundation
import Logging
import PostgresNIO
import Synchronization
import VouchLiveTestSupport
import VouchStorePostgres

/// The live channel across two instances on one PostgreSQL database: sockets held on instance A,
/// their sessions ended through instance B, and the time from B's answer to A's socket hearing
/// the challenge. With `endingsWhileAway`, A's listening connection is terminated by the database
/// (`pg_terminate_backend`) and that many sessions are ended while it is away: each socket must
/// still hear its challenge, from the log, once A catches up.
public struct LiveReach: Sendable {
    /// Sessions ended (one socket each) while every listener listens.
    public var endings: Int
    /// Sessions ended after the listeners were terminated, before they reconnect.
    public var endingsWhileAway: Int

    public init(endings: Int = 20, endingsWhileAway: Int = 10) {
        self.endings = endings
        self.endingsWhileAway = endingsWhileAway
    }

    /// Starts both instances on `databaseURL`, measures, stops them.
    ///
    /// - Parameters:
    ///   - databaseURL: an empty database (the instances migrate it).
    ///   - options: each instance's store options; the listener's first retry should leave time
    ///     for the endings made while it is away (a second or more).
    ///   - logger: the instances' logger.
    public func run(databaseURL: PostgresDatabaseURL, options: PostgresStoreOptions, logger: Logger) async throws -> LiveReachReport {
        let feeds = FeedStates()
        return try await TwoInstances.run(
            databaseURL: databaseURL, options: options, skewSeconds: 0, logger: logger,
            feedConnected: { feeds.set($0, $1) }
        ) { running in
            let client = RaceClient(instances: running)
            defer { client.shutdown() }
            try await feeds.waitUntil(connected: true, count: 2)
            let catalogue = try await RaceCatalogue.make(client)
            let total = endings + endingsWhileAway
            var sockets: [LiveSocketClient] = []
            for index in 0..<total {
                let session = try await client.signIn(catalogue.key, app: catalogue.app, user: "live-\(index)", on: 0)
                let socket = try await LiveSocketClient.open(
                    port: running.instances[0].port, headers: ["Authorization": "Bearer \(session)"])
                guard await socket.nextObject(timeout: .seconds(30))?["type"] as? String == "ready" else {
                    throw RaceError("socket \(index) did not get ready")
                }
                sockets.append(socket)
            }
            var report = LiveReachReport()
            for index in 0..<endings {
                let sent = ContinuousClock.now
                let returned = try await revoke(client, catalogue: catalogue, user: "live-\(index)")
                let frame = await heard(sockets[index], since: returned)
                report.record(frame, socket: index, into: \.latencies)
                if let frame { report.fromRequest.append(frame + (returned - sent)) }
            }
            if endingsWhileAway > 0 {
                try await terminateListeners(databaseURL, logger: logger)
                try await feeds.waitUntil(connected: false, count: 1)
                let away = ContinuousClock.now
                var returned: [ContinuousClock.Instant] = []
                for index in endings..<total {
                    returned.append(try await revoke(client, catalogue: catalogue, user: "live-\(index)"))
                }
                report.endedWhileAway = feeds.anyDisconnected
                report.awayFor = ContinuousClock.now - away
                for (offset, index) in (endings..<total).enumerated() {
                    report.record(await heard(sockets[index], since: returned[offset]), socket: index, into: \.catchUpLatencies)
                }
            }
            for socket in sockets { await socket.close() }
            return report
        }
    }

    /// `DELETE …/users/<user>/sessions` through instance B; when its answer arrived.
    private func revoke(_ client: RaceClient, catalogue: RaceCatalogue, user: String) async throws -> ContinuousClock.Instant {
        let answer = try await client.request(
            .DELETE, "/admin/apps/\(catalogue.app.uuidString)/users/\(user)/sessions", on: 1,
            authorization: "Bearer \(client.adminToken)")
        guard (200..<300).contains(answer.status) else { throw RaceError("the revocation answered \(answer.status)") }
        return ContinuousClock.now
    }

    /// How long after `since` the socket heard a `session_revoked` challenge; `nil` if it did not
    /// within 15 s.
    private func heard(_ socket: LiveSocketClient, since: ContinuousClock.Instant) async -> Duration? {
        guard let frame = await socket.nextWithArrival(timeout: .seconds(15)), frame.text.contains(#""reason":"session_revoked""#)
        else { return nil }
        return frame.at - since
    }

    /// Ends every listening connection of the database's Vouch instances, as a network or a
    /// database restart would.
    private func terminateListeners(_ url: PostgresDatabaseURL, logger: Logger) async throws {
        let configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'vouch-endings-listener'",
            logger: logger)
        var terminated = 0
        for try await _ in rows { terminated += 1 }
        guard terminated > 0 else { throw RaceError("no listening connection to terminate") }
    }
}

/// What the live reach measured.
public struct LiveReachReport: Sendable, CustomStringConvertible {
    /// From an ending's answer on instance B to the challenge on instance A's socket (negative
    /// when the frame arrived before the answer did).
    public var latencies: [Duration] = []
    /// From the ending's request to the challenge.
    public var fromRequest: [Duration] = []
    /// The same for endings made while A's listener was away.
    public var catchUpLatencies: [Duration] = []
    /// Sockets that never heard their challenge.
    public var missed: [Int] = []
    /// Whether the endings made "while away" found a listener disconnected.
    public var endedWhileAway = false
    public var awayFor: Duration = .zero

    public var passed: Bool { missed.isEmpty }

    mutating func record(_ latency: Duration?, socket: Int, into list: WritableKeyPath<LiveReachReport, [Duration]>) {
        if let latency { self[keyPath: list].append(latency) } else { missed.append(socket) }
    }

    /// The `fraction` quantile of `values` (nearest rank).
    public static func quantile(_ values: [Duration], _ fraction: Double) -> Duration {
        guard !values.isEmpty else { return .zero }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    /// `value` in milliseconds to a tenth, for reports.
    public static func milliseconds(_ value: Duration) -> String {
        String(format: "%.1f ms", Double(value.components.seconds) * 1000 + Double(value.components.attoseconds) / 1e15)
    }

    public var description: String {
        let milliseconds = Self.milliseconds
        var lines = [
            "live reach: \(latencies.count) endings across instances, p50 \(milliseconds(Self.quantile(latencies, 0.5))), "
                + "p99 \(milliseconds(Self.quantile(latencies, 0.99))), max \(milliseconds(latencies.max() ?? .zero)) "
                + "after the answer; p50 \(milliseconds(Self.quantile(fromRequest, 0.5))), "
                + "p99 \(milliseconds(Self.quantile(fromRequest, 0.99))) after the request was sent"
        ]
        if !catchUpLatencies.isEmpty || endedWhileAway {
            lines.append(
                "while the listener was away (\(endedWhileAway ? "disconnected" : "NOT disconnected")): "
                    + "\(catchUpLatencies.count) heard, slowest \(milliseconds(catchUpLatencies.max() ?? .zero))")
        }
        if !missed.isEmpty { lines.append("MISSED: sockets \(missed)") }
        return lines.joined(separator: "\n")
    }
}

/// Each instance's feed state, as the servers report it.
final class FeedStates: Sendable {
    private let states = Mutex<[Int: Bool]>([:])
    private let disconnections = Mutex(0)

    func set(_ index: Int, _ connected: Bool) {
        states.withLock { $0[index] = connected }
        if !connected { disconnections.withLock { $0 += 1 } }
    }

    var anyDisconnected: Bool { disconnections.withLock { $0 } > 0 }

    /// Waits (up to 30 s) until `count` instances report `connected`.
    func waitUntil(connected: Bool, count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if states.withLock({ $0.values.filter { $0 == connected }.count }) >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RaceError("the feeds did not become \(connected ? "connected" : "disconnected") within 30 s")
    }
}
