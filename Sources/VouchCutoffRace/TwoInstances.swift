import Foundation
import Hummingbird
import ServiceLifecycle
import Logging
import Synchronization
import VouchServer
import VouchStorePostgres

/// Two servers on one PostgreSQL database, each with its own store (its own pool, as two
/// processes would have), listening on loopback; the second's clock runs `skewSeconds` ahead.
enum TwoInstances {
    struct Instance: Sendable {
        let baseURL: String
        let name: String
        let port: Int
    }

    struct Running: Sendable {
        let instances: [Instance]
        let adminToken: String
    }

    /// - Parameter feedConnected: told, with the instance's index, whether its feed of session
    ///   endings is listening.
    static func run<Value: Sendable>(
        databaseURL: PostgresDatabaseURL, options: PostgresStoreOptions, skewSeconds: Int64, logger: Logger,
        feedConnected: @escaping @Sendable (Int, Bool) -> Void = { _, _ in },
        _ body: @escaping @Sendable (Running) async throws -> Value
    ) async throws -> Value {
        let adminToken = "race-" + UUID().uuidString
        return try await PostgresStore.open(url: databaseURL, options: options, logger: logger) { first in
            try await PostgresStore.open(url: databaseURL, options: options, logger: logger) { second in
                let ports = Ports()
                var applications: [any Service] = []
                for (index, store) in [first, second].enumerated() {
                    var clocks = ServerClocks.system
                    let offset = index == 0 ? 0 : skewSeconds
                    clocks.now = { Int64(Date().timeIntervalSince1970) + offset }
                    let configuration = ServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 0, adminToken: adminToken)
                    applications.append(
                        try await VouchServer.makeApplication(
                            configuration: configuration, store: store, logger: logger, clocks: clocks,
                            onServerRunning: { bound in ports.set(index, bound) },
                            liveFeedConnected: { feedConnected(index, $0) }))
                }
                // Stopped by a graceful shutdown once the body is done (cancelling would cut the
                // servers' connections mid-request), inside the stores' scopes.
                let services = ServiceGroup(
                    configuration: .init(services: applications, gracefulShutdownSignals: [], logger: logger))
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await services.run() }
                    let value: Value
                    do {
                        let bound = try await waitForPorts(ports)
                        let instances = bound.enumerated().map { index, port in
                            Instance(
                                baseURL: "http://127.0.0.1:\(port)", name: index == 0 ? "A" : "B (+\(skewSeconds) s)", port: port)
                        }
                        value = try await body(Running(instances: instances, adminToken: adminToken))
                    } catch {
                        await services.triggerGracefulShutdown()
                        try? await group.waitForAll()
                        throw error
                    }
                    await services.triggerGracefulShutdown()
                    try await group.waitForAll()
                    return value
                }
            }
        }
    }

    /// Both ports, once both servers listen (within 30 s).
    private static func waitForPorts(_ ports: Ports) async throws -> [Int] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let bound = ports.both { return bound }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RaceError("the servers did not start listening within 30 s")
    }

    /// The two servers' ports, as each reports it once it listens.
    final class Ports: Sendable {
        private let ports = Mutex<[Int?]>([nil, nil])
        func set(_ index: Int, _ port: Int) { ports.withLock { $0[index] = port } }
        var both: [Int]? {
            ports.withLock { ports in ports.allSatisfy { $0 != nil } ? ports.compactMap { $0 } : nil }
        }
    }
}

struct RaceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
