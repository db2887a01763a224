import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import NIOCore
import NIOFoundationCompat
@_exported import enum NIOHTTP1.HTTPMethod
import VouchServer
import VouchStore
import VouchStoreSQLite
import VouchTestSupport

/// The background purge's schedule, in the test's hands: the server purges once each time the
/// test calls `purgeNow()`, never on its own.
final class PurgeTrigger: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    /// How many times the purge loop has started waiting: one more than the purges it finished.
    private let waits = Mutex(0)

    init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }

    /// Runs one purge and returns once it has finished (the loop is waiting again).
    func purgeNow() async throws {
        let before = waits.withLock { $0 }
        continuation.yield()
        let deadline = ContinuousClock.now + .seconds(60)
        while waits.withLock({ $0 }) == before {
            guard ContinuousClock.now < deadline else { throw TestFailure("the purge did not finish within 60 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The server's `sleep` between purges: returns at the next `purgeNow()`, throws when the
    /// server shuts down.
    var sleep: @Sendable (Duration) async throws -> Void {
        { [self] _ in try await waitForPurgeRequest() }
    }

    private func waitForPurgeRequest() async throws {
        waits.withLock { $0 += 1 }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        try Task.checkCancellation()
    }
}

/// One HTTP answer, with the body parsed as JSON when it is JSON.
struct HTTPResult: Sendable {
    let status: Int
    let headers: [(String, String)]
    let body: Data

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var jsonArray: [[String: Any]] { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] ?? [] }
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try JSONDecoder().decode(T.self, from: body) }
}

/// A real `vouch serve` application on 127.0.0.1 over a real SQLite file, talked to over real HTTP.
struct LiveServer: Sendable {
    static let adminToken = "test-admin-token-0123456789"

    let port: Int
    var baseURL: String { "http://localhost:\(port)" }
    let store: SQLiteStore
    let clock: ManualClock
    let purges: PurgeTrigger

    /// Starts a server on a fresh SQLite database in a temporary directory, runs `body`, and
    /// always stops the server and closes the store.
    static func run(
        rateLimit: Int = 0, clock: ManualClock = ManualClock(),
        connectionLimits: ConnectionLimits = ConnectionLimits(), trustedProxies: Set<String> = [],
        logger serverLogger: Logger? = nil, readConnection: SQLiteReadConnection = .never,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (LiveServer) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "vouch-test")
        logger.logLevel = .warning
        // One connection per store: the suite runs a hundred servers at once, and a read connection
        // each would add hundreds of descriptors for nothing these tests look at (the read
        // connection is covered by the SQLite conformance run and by the tests that spawn
        // `vouch serve`).
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("vouch.sqlite").path, configuration: .init(readConnection: readConnection), logger: logger)
        do {
            let port = Shared(0)
            let purges = PurgeTrigger()
            // Every clock is the test's: unix time and the rate limiter's uptime move only with
            // `clock.advance`, purges happen only on `purges.purgeNow()`.
            let clocks = ServerClocks(now: clock.closure, uptime: { Double(clock.now) }, sleep: purges.sleep)
            var configuration = ServerConfiguration(
                host: "127.0.0.1", port: 0, rateLimit: rateLimit, adminToken: adminToken,
                connectionLimits: connectionLimits)
            configuration.trustedProxies = trustedProxies
            configure(&configuration)
            let app = try await VouchServer.makeApplication(
                configuration: configuration,
                store: store, logger: serverLogger ?? logger, clocks: clocks, onServerRunning: { port.set($0) })
            try await app.test(.live) { _ in
                try await body(LiveServer(port: port.value, store: store, clock: clock, purges: purges))
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    func request(
        _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [String: String] = [:],
        admin: Bool = false, contentType: String? = "application/json"
    ) async throws -> HTTPResult {
        try await request(
            method, path, bytes: body.map { Array($0.utf8) }, headers: headers, admin: admin,
            contentType: contentType)
    }

    /// The same, with a body of any bytes (not necessarily UTF-8).
    func request(
        _ method: HTTPMethod, _ path: String, bytes body: [UInt8]?, headers: [String: String] = [:],
        admin: Bool = false, contentType: String? = "application/json"
    ) async throws -> HTTPResult {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if admin { request.headers.add(name: "Authorization", value: "Bearer \(Self.adminToken)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if let contentType { request.headers.add(name: "Content-Type", value: contentType) }
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        // Generous: when the whole suite starts at once, hundreds of servers share two cores and a
        // request can wait its turn for tens of seconds; the suites' time limits catch real hangs.
        let response = try await Self.http.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 1 << 22)
        return HTTPResult(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(buffer: bytes))
    }

    /// The tests' HTTP client: idle connections go after a second, not the shared client's minute,
    /// so that a suite of a hundred short-lived servers does not pile up hundreds of descriptors.
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(1), concurrentHTTP1ConnectionsPerHostSoftLimit: 8)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    func json(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
    }

    func post(_ path: String, _ object: [String: Any], admin: Bool = false) async throws -> HTTPResult {
        try await request(.POST, path, body: json(object), admin: admin)
    }

    /// Why a session's client is asked to sign in again (`data.reason` of the 401), `nil` while
    /// the session still works.
    func challengeReason(_ sessionToken: String) async throws -> String? {
        let answer = try await request(.GET, "/users/me", headers: ["Authorization": "Bearer \(sessionToken)"])
        return answer.status == 200 ? nil : answer.data["reason"] as? String
    }

    func nonce() async throws -> String {
        let answer = try await request(.POST, "/nonces")
        guard answer.status == 201, let nonce = answer.json["nonce"] as? String else {
            throw TestFailure("POST /nonces answered \(answer.status): \(answer.text)")
        }
        return nonce
    }
}
