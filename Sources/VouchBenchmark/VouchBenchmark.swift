import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOFoundationCompat
import Synchronization
import VouchProtocol
import VouchServer
import VouchStore
import VouchStorePostgres
import VouchStoreSQLite
import VouchTokens
import _CryptoExtras

/// `vouch-benchmark [seconds]`: the token library in isolation, then real sign-ins over HTTP
/// on loopback against a real SQLite file and, when `VOUCH_BENCH_DATABASE_URL` names a
/// PostgreSQL server, against PostgreSQL with one and with two server instances. Run it in
/// release mode (`scripts/bench.sh`).
@main
struct VouchBenchmark {
    static func main() async throws {
        let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 3
        let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, "
            + "\(ProcessInfo.processInfo.physicalMemory / 1_073_741_824) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
        print("vouch-benchmark: \(seconds) s per measurement on \(machine)")
        try await tokenBenchmarks(seconds: seconds)
        try await sqliteBenchmarks(seconds: seconds)
        if let text = ProcessInfo.processInfo.environment["VOUCH_BENCH_DATABASE_URL"], !text.isEmpty {
            try await postgresBenchmarks(seconds: seconds, url: try PostgresDatabaseURL(text))
        } else {
            print("(PostgreSQL figures skipped: set VOUCH_BENCH_DATABASE_URL)")
        }
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "vouch-bench")
        logger.logLevel = .error
        return logger
    }

    static func sqliteBenchmarks(seconds: Double) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(path: directory.appendingPathComponent("vouch.sqlite").path, logger: quietLogger)
        print("-- SQLite (one instance)")
        try await serverBenchmarks(seconds: seconds, stores: [store])
        try await store.close()
    }

    /// One instance, then two instances (two pools, two HTTP servers in this process) on one
    /// database, the clients alternating between them.
    static func postgresBenchmarks(seconds: Double, url: PostgresDatabaseURL) async throws {
        let options = PostgresStoreOptions(poolSize: 16, timeout: .seconds(10))
        let one = try await PostgresStore.open(url: url, options: options, logger: quietLogger)
        print("-- PostgreSQL \(url.redacted) (one instance)")
        try await serverBenchmarks(seconds: seconds, stores: [one])
        let two = try await PostgresStore.open(url: url, options: options, logger: quietLogger)
        print("-- PostgreSQL (two instances, clients alternating)")
        try await serverBenchmarks(seconds: seconds, stores: [one, two])
        try await one.close()
        try await two.close()
    }

    static func tokenBenchmarks(seconds: Double) async throws {
        let pair = try RSAKeyPair.generate()
        let providerID = UUID(), keyID = UUID(), appID = UUID(), applicationKey = UUID()
        let secret = (0..<32).map { UInt8($0) }
        let context = BenchmarkContext(
            key: LayerVerificationKey(id: keyID, providerID: providerID, status: .active, publicKey: pair.privateKey.publicKey),
            appID: appID,
            secret: RegistrationSecret(applicationKey: applicationKey, appID: appID, secret: secret))
        let now = Int64(Date().timeIntervalSince1970)
        let layer = try LayerTokenMinter(privateKey: pair.privateKey, providerID: providerID, keyID: keyID)
        let sinch = try SinchTokenMinter(applicationKey: applicationKey.lowercased, applicationSecret: Data(secret).base64EncodedString())
        let layerToken = try layer.mint(userID: "alice", nonce: "n", issuedAt: now)
        let sinchToken = try sinch.mint(userID: "alice", issuedAt: now)
        let jws = try CompactJWS(parsing: layerToken)
        let verifier = TokenVerifier()

        var results: [Measurement] = []
        results.append(try await Measurement.run("RS256 verify (swift-crypto primitive)", seconds: seconds) {
            guard RS256.isValid(signature: jws.signature, for: jws.signingInput, publicKey: pair.privateKey.publicKey) else {
                throw BenchmarkError("signature did not verify")
            }
        })
        results.append(try await Measurement.run("Layer token: full verify (in memory)", seconds: seconds) {
            _ = try await verifier.verify(layerToken, appID: appID, context: context, now: now)
        })
        results.append(try await Measurement.run("Sinch token: full verify (in memory)", seconds: seconds) {
            _ = try await verifier.verify(sinchToken, appID: appID, context: context, now: now)
        })
        results.append(try await Measurement.run("Layer token: parse only (rules #1-#4)", seconds: seconds) {
            _ = try CompactJWS(parsing: layerToken)
        })
        results.append(try await Measurement.run("Layer token: mint (RS256 sign)", seconds: seconds) {
            _ = try layer.mint(userID: "alice", nonce: "n", issuedAt: now)
        })
        results.append(try await Measurement.run("Sinch token: mint", seconds: seconds) {
            _ = try sinch.mint(userID: "alice", issuedAt: now)
        })
        for result in results { print(result.line) }
    }

    /// The HTTP figures against one server per store (the stores may share one database), the
    /// requests spread over the servers in turn.
    static func serverBenchmarks(seconds: Double, stores: [any Store]) async throws {
        let admin = "benchmark-admin-token-0123456789"
        var serverTasks: [Task<Void, any Error>] = []
        var bases: [String] = []
        defer { for task in serverTasks { task.cancel() } }
        for store in stores {
            let portBox = PortBox()
            let app = try await VouchServer.makeApplication(
                configuration: ServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: 0, adminToken: admin),
                store: store, logger: quietLogger, onServerRunning: { portBox.set($0) })
            serverTasks.append(Task { try await app.runService(gracefulShutdownSignals: []) })
            while portBox.value == 0 { try await Task.sleep(for: .milliseconds(20)) }
            bases.append("http://127.0.0.1:\(portBox.value)")
        }
        let api = BenchmarkAPI(bases: bases, admin: admin)
        let world = try await api.setUp()

        var results: [Measurement] = []
        results.append(try await Measurement.run("HTTP POST /nonces", seconds: seconds) {
            _ = try await api.nonce()
        })
        results.append(try await Measurement.run("HTTP sign-in (nonce + mint + POST /sessions)", seconds: seconds) {
            _ = try await api.signIn(world)
        })
        let session = try await api.signIn(world)
        results.append(try await Measurement.run("HTTP GET /users/me", seconds: seconds) {
            try await api.currentUser(session)
        })
        let concurrency = 16
        results.append(try await Measurement.run("HTTP sign-in, \(concurrency) concurrent clients", seconds: seconds, batch: concurrency) {
            try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<concurrency { group.addTask { try await api.signIn(world) } }
                try await group.waitForAll()
            }
        })
        results.append(try await Measurement.run("HTTP GET /users/me, \(concurrency) concurrent", seconds: seconds, batch: concurrency) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency { group.addTask { try await api.currentUser(session) } }
                try await group.waitForAll()
            }
        })
        for result in results { print(result.line) }
        for task in serverTasks {
            task.cancel()
            _ = await task.result
        }
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

final class PortBox: Sendable {
    private let port = Mutex(0)
    func set(_ value: Int) { port.withLock { $0 = value } }
    var value: Int { port.withLock { $0 } }
}
