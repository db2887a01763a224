import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing
import VouchProtocol
import VouchTestSupport
import VouchTokens

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The harness of the process tests (Process*.swift): they run the real `vouch` binary, as an
// operator would, and talk to it over real HTTP. Everything here is prefixed `Process` so that it
// cannot clash with the in-process test support of the same target.

// MARK: - Where things are

enum ProcessHarness {
    static let packageRoot = TestPackage.root
    static let binary = TestPackage.vouchBinary
    static var binaryExists: Bool { TestPackage.vouchBinaryExists }
    static let missingBinaryMessage = Comment(rawValue: TestPackage.missingBinaryMessage)

    /// How long a process may take to print its "listening on" line.
    static let startTimeout: Duration = .seconds(20)
    /// How long a process may take to exit after SIGTERM / SIGINT before the test calls it hung.
    static let stopTimeout: Duration = .seconds(20)

    /// The one HTTP client of the process tests. Never shut down: it lives as long as the test
    /// process (a static is never deinitialised), and it is shared by every test.
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(15))
        // Idle connections go quickly: see `LiveServer.http` on why descriptors must not pile up.
        configuration.connectionPool = .init(idleTimeout: .seconds(1), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// A TCP port on 127.0.0.1 that nothing listens on (bound once, then released).
    static func unusedPort() async throws -> Int {
        try await bindAndRelease(port: 0)
    }

    /// Binds `port` on 127.0.0.1 (0: any), closes it again, and returns the port that was bound.
    private static func bindAndRelease(port: Int) async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: port).get()
        let bound = channel.localAddress?.port
        try await channel.close()
        guard let bound else { throw ProcessHarnessError("could not find an unused port") }
        return bound
    }

    /// A free TCP port on 127.0.0.1 below the kernel's ephemeral range, for a server that must
    /// listen on the same port again later (a database stopped and restarted).
    ///
    /// `unusedPort()` is an ephemeral port: once it is released, any outgoing connection of a
    /// test running beside this one may be given it as its local port, and a server that binds
    /// it a moment later fails with "Address already in use" (seen in CI: the throwaway
    /// PostgreSQL cluster could not start). Below the range the kernel never hands a port out by
    /// itself, so only an explicit bind can take it; a random one is tried until one is free.
    static func unusedFixedPort() async throws -> Int {
        let ephemeralLow =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first }.flatMap { Int($0) } ?? 32768
        let candidates = 20_000..<max(20_001, min(ephemeralLow, 32768))
        for _ in 0..<50 {
            if let port = try? await bindAndRelease(port: Int.random(in: candidates)) { return port }
        }
        throw ProcessHarnessError("no free port below the ephemeral range after 50 tries")
    }

    /// The bare UUID of `layer:///apps/<uuid>` and its kind (or of a bare UUID).
    static func bare(_ id: String) -> String {
        String(id.split(separator: "/").last ?? Substring(id))
    }

    /// Environment for a child: this process's, without the variables that would change what
    /// `vouch serve` does (a test sets them explicitly when it wants them).
    static func childEnvironment(_ overrides: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["VOUCH_ADMIN_TOKEN"] = nil
        environment["VOUCH_DATABASE_URL"] = nil
        for (name, value) in overrides { environment[name] = value }
        return environment
    }
}

/// A failure of the harness itself (a process that would not start, a wait that timed out).
struct ProcessHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Waiting with a deadline

enum ProcessWait {
    /// Polls `condition` every 20 ms until it holds; throws once `timeout` has passed.
    static func until(
        _ what: @autoclosure () -> String, timeout: Duration,
        _ condition: () throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try condition() { return }
            guard ContinuousClock.now < deadline else {
                throw ProcessHarnessError("timed out after \(timeout) waiting for \(what())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Whether `condition` comes to hold within `timeout` (polled every 20 ms).
    static func eventually(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(20))) != nil else {
                return condition()
            }
        }
        return true
    }

    /// Whether the asynchronous `condition` comes to hold within `timeout` (polled every 100 ms).
    static func eventuallyAsync(timeout: Duration, _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while await !condition() {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(100))) != nil else {
                return await condition()
            }
        }
        return true
    }
}

// MARK: - One spawned process

/// A child process with its stdout and stderr in files (never pipes: a chatty server must not
/// block on a full pipe nobody reads, and the files stay readable after the process is gone).
final class ProcessChild: @unchecked Sendable {
    typealias Exit = ChildProcess.Termination

    let name: String
    let arguments: [String]
    let stdoutURL: URL
    let stderrURL: URL
    private let process: ChildProcess

    /// Starts `vouch <arguments>` in `directory` (with `posix_spawn`: see `ChildProcess`).
    init(name: String, arguments: [String], environment: [String: String] = [:], directory: URL) throws {
        self.name = name
        self.arguments = arguments
        stdoutURL = directory.appendingPathComponent("\(name).stdout")
        stderrURL = directory.appendingPathComponent("\(name).stderr")
        process = try ChildProcess(
            executable: ProcessHarness.binary.path, arguments: arguments,
            environment: ProcessHarness.childEnvironment(environment), directory: directory.path,
            standardOutput: stdoutURL.path, standardError: stderrURL.path)
    }

    var pid: Int32 { process.pid }
    var isRunning: Bool { process.isRunning }

    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The last lines of stderr, for failure messages.
    var stderrTail: String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false).suffix(15).joined(separator: "\n")
    }

    /// How the process ended, once it has.
    var exit: Exit? { process.termination }

    func send(_ signal: Int32) { process.send(signal) }

    /// Waits for the first stdout line containing `marker`; fails early if the process exits.
    func waitForLine(containing marker: String, timeout: Duration = ProcessHarness.startTimeout) async throws -> String {
        var found: String?
        try await ProcessWait.until("\(name) to print \"\(marker)\"", timeout: timeout) {
            if let line = stdout.split(separator: "\n").first(where: { $0.contains(marker) }) {
                found = String(line)
                return true
            }
            if let exit {
                throw ProcessHarnessError("\(name) ended (\(exit)) before printing \"\(marker)\"; stderr:\n\(stderrTail)")
            }
            return false
        }
        return found!
    }

    /// Waits until the process has ended and says how.
    @discardableResult
    func waitForExit(timeout: Duration) async throws -> Exit {
        var ended: Exit?
        try await ProcessWait.until("\(name) (pid \(pid)) to exit", timeout: timeout) {
            ended = exit
            return ended != nil
        }
        guard let ended else { throw ProcessHarnessError("\(name) (pid \(pid)) has no exit status") }
        return ended
    }

    /// SIGTERM (or another signal), then waits; a process still running after `timeout` is
    /// killed and reported as hung.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Duration = ProcessHarness.stopTimeout) async throws -> Exit {
        send(signal)
        do {
            return try await waitForExit(timeout: timeout)
        } catch {
            killNow()
            _ = try? await waitForExit(timeout: .seconds(5))
            throw ProcessHarnessError("\(name) did not exit within \(timeout) of signal \(signal); killed it")
        }
    }

    /// SIGKILL, at once (also from a cancellation handler or a `defer`).
    func killNow() { send(SIGKILL) }

    /// SIGKILL and wait for the process to be gone.
    func kill9() async throws {
        killNow()
        try await waitForExit(timeout: .seconds(10))
    }
}

// MARK: - A test's scratch space

/// A temporary directory plus every process a test started in it. `ProcessScratch.with` removes
/// both whatever happens: a failed expectation, a thrown error, a cancelled test.
final class ProcessScratch: Sendable {
    let directory: URL
    private let started = Mutex<(children: [ProcessChild], counter: Int)>(([], 0))

    private init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("vouch-process-\(UUID().uuidString.lowercased())", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    static func with<T>(_ body: (ProcessScratch) async throws -> T) async throws -> T {
        let scratch = try ProcessScratch()
        do {
            let value = try await withTaskCancellationHandler {
                try await body(scratch)
            } onCancel: {
                scratch.killAllNow()
            }
            await scratch.cleanUp()
            return value
        } catch {
            await scratch.cleanUp()
            throw error
        }
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Starts `vouch <arguments>` here; the scratch stops it at the end if the test did not.
    func spawn(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessChild {
        let unique: String = started.withLock {
            $0.counter += 1
            return "\($0.counter)-\(name)"
        }
        let child = try ProcessChild(name: unique, arguments: arguments, environment: environment, directory: directory)
        started.withLock { $0.children.append(child) }
        return child
    }

    func killAllNow() {
        for child in started.withLock({ $0.children }) { child.killNow() }
    }

    private func cleanUp() async {
        let all = started.withLock { $0.children }
        for child in all where child.isRunning { child.killNow() }
        for child in all { _ = try? await child.waitForExit(timeout: .seconds(10)) }
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Servers and the CLI

    /// `vouch serve --host 127.0.0.1 --port 0 --data-dir <dataDir> [extra]`, once it listens.
    ///
    /// - Parameter adminToken: `VOUCH_ADMIN_TOKEN` for the child; without it the token is read
    ///   from `<dataDir>/admin-token`.
    func startServer(
        dataDir: String = "vouch-data", arguments extra: [String] = [],
        adminToken: String? = nil
    ) async throws -> ProcessServer {
        let dataPath = url(dataDir).path
        let child = try spawn(
            "serve", ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataPath] + extra,
            environment: adminToken.map { ["VOUCH_ADMIN_TOKEN": $0] } ?? [:])
        let line = try await child.waitForLine(containing: "vouch listening on http://")
        let port = try ProcessServer.port(in: line)
        let token: String
        if let adminToken {
            token = adminToken
        } else {
            let file = url(dataDir).appendingPathComponent("admin-token")
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                throw ProcessHarnessError("vouch serve listens but wrote no \(file.path)")
            }
            token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return ProcessServer(child: child, port: port, adminToken: token, dataDirectory: url(dataDir))
    }

    /// `vouch identity-provider … --port 0`, once it listens; returns its base URL.
    func startIdentityProvider(
        providerID: String, keyID: String, privateKeyFile: URL,
        registration: (key: String, secret: String)? = nil
    ) async throws -> (ProcessChild, String) {
        var arguments = [
            "identity-provider", "--provider-id", providerID, "--key-id", keyID,
            "--private-key", privateKeyFile.path, "--host", "127.0.0.1", "--port", "0",
        ]
        if let registration {
            arguments += ["--registration-key", registration.key, "--registration-secret", registration.secret]
        }
        let child = try spawn("idp", arguments)
        let line = try await child.waitForLine(containing: "development identity provider listening on http://")
        return (child, "http://127.0.0.1:\(try ProcessServer.port(in: line))")
    }

    /// Runs a short-lived `vouch` command to completion (at most `timeout`).
    func run(
        _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(30)
    ) async throws -> ProcessCommandResult {
        let child = try spawn(arguments.first ?? "vouch", arguments, environment: environment)
        let exit: ProcessChild.Exit
        do {
            exit = try await child.waitForExit(timeout: timeout)
        } catch {
            child.killNow()
            throw ProcessHarnessError("`vouch \(arguments.joined(separator: " "))` did not finish within \(timeout)")
        }
        return ProcessCommandResult(exit: exit, stdout: child.stdout, stderr: child.stderr)
    }
}

struct ProcessCommandResult: Sendable, CustomStringConvertible {
    let exit: ProcessChild.Exit
    let stdout: String
    let stderr: String

    var description: String { "\(exit); stdout: \(stdout.debugDescription); stderr: \(stderr.debugDescription)" }
}

// MARK: - HTTP

/// A JSON value read with Foundation (independent of the code under test), for looking into bodies.
struct ProcessJSON: @unchecked Sendable, CustomStringConvertible {
    let value: Any?

    init(raw: Any?) { value = raw }

    init(data: Data) throws {
        value = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    subscript(key: String) -> ProcessJSON { ProcessJSON(raw: (value as? [String: Any])?[key]) }
    subscript(index: Int) -> ProcessJSON {
        guard let array = value as? [Any], array.indices.contains(index) else { return ProcessJSON(raw: nil) }
        return ProcessJSON(raw: array[index])
    }

    var string: String? { value as? String }
    var int: Int? { (value as? NSNumber)?.intValue }
    var bool: Bool? { value as? Bool }
    var isNull: Bool { value is NSNull }
    var keys: Set<String>? { (value as? [String: Any]).map { Set($0.keys) } }
    var array: [ProcessJSON]? { (value as? [Any])?.map(ProcessJSON.init(raw:)) }

    var description: String {
        guard let value, JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        else {
            return String(describing: value)
        }
        return String(decoding: data, as: UTF8.self)
    }
}

struct ProcessHTTPResponse: Sendable, CustomStringConvertible {
    let status: Int
    let headers: HTTPHeaders
    let body: Data

    var json: ProcessJSON { (try? ProcessJSON(data: body)) ?? ProcessJSON(raw: nil) }
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first(name: name) }

    var description: String { "HTTP \(status) \(text)" }
}

enum ProcessHTTP {
    /// One request with a 15-second deadline; `json` is serialised with JSONSerialization.
    static func send(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [],
        json: [String: any Sendable]? = nil, timeout: Duration = .seconds(15)
    ) async throws -> ProcessHTTPResponse {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            let data = try JSONSerialization.data(withJSONObject: json.mapValues { $0 as Any }, options: [.sortedKeys])
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: data))
        }
        let seconds = timeout.components.seconds
        let response = try await ProcessHarness.http.execute(request, timeout: .seconds(seconds))
        let body = try await response.body.collect(upTo: 1 << 20)
        return ProcessHTTPResponse(
            status: Int(response.status.code), headers: response.headers,
            body: Data(body.readableBytesView))
    }
}

// MARK: - A running `vouch serve`

struct ProcessServer: Sendable {
    let child: ProcessChild
    let port: Int
    let adminToken: String
    let dataDirectory: URL

    var baseURL: String { "http://127.0.0.1:\(port)" }

    static func port(in line: String) throws -> Int {
        // "… listening on http://HOST:PORT" (possibly followed by more text)
        guard let range = line.range(of: "http://") else { throw ProcessHarnessError("no URL in \(line.debugDescription)") }
        let address = line[range.upperBound...].prefix { !$0.isWhitespace }
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            port > 0
        else {
            throw ProcessHarnessError("no port in \(line.debugDescription)")
        }
        return port
    }

    // Client API

    func request(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [],
        json: [String: any Sendable]? = nil
    ) async throws -> ProcessHTTPResponse {
        try await ProcessHTTP.send(method, baseURL + path, headers: headers, json: json)
    }

    func nonce() async throws -> String {
        let response = try await request(.POST, "/nonces")
        guard response.status == 201, let nonce = response.json["nonce"].string else {
            throw ProcessHarnessError("POST /nonces answered \(response)")
        }
        return nonce
    }

    func signIn(_ identityToken: String, app: String) async throws -> ProcessHTTPResponse {
        try await request(.POST, "/sessions", json: ["identity_token": identityToken, "app_id": app])
    }

    func me(_ sessionToken: String) async throws -> ProcessHTTPResponse {
        try await request(.GET, "/users/me", headers: [("Authorization", "Layer session-token=\"\(sessionToken)\"")])
    }

    // Admin API

    func admin(_ method: HTTPMethod, _ path: String, json: [String: any Sendable]? = nil) async throws -> ProcessHTTPResponse {
        try await request(method, path, headers: [("Authorization", "Bearer \(adminToken)")], json: json)
    }

    /// An admin call that must answer `status`; returns its JSON body.
    @discardableResult
    func admin(
        _ method: HTTPMethod, _ path: String, json: [String: any Sendable]? = nil,
        expect status: Int
    ) async throws -> ProcessJSON {
        let response = try await admin(method, path, json: json)
        guard response.status == status else {
            throw ProcessHarnessError("\(method) \(path) answered \(response), expected \(status)")
        }
        return response.json
    }

    /// Creates an app and a provider bound to it; returns their bare UUIDs.
    func makeAppAndProvider(name: String = "process test") async throws -> (app: String, provider: String) {
        let app = try await admin(.POST, "/admin/apps", json: ["name": name], expect: 201)
        let provider = try await admin(.POST, "/admin/providers", json: ["name": name + " backend"], expect: 201)
        let appID = ProcessHarness.bare(try #require(app["id"].string))
        let providerID = ProcessHarness.bare(try #require(provider["id"].string))
        try await admin(.PUT, "/admin/providers/\(providerID)/apps/\(appID)", expect: 204)
        return (appID, providerID)
    }

    /// `{"generate": true}`: the key's bare UUID and its private key PEM.
    func generateKey(provider: String) async throws -> (id: String, privateKeyPEM: String) {
        let key = try await admin(.POST, "/admin/providers/\(provider)/keys", json: ["generate": true], expect: 201)
        return (ProcessHarness.bare(try #require(key["id"].string)), try #require(key["private_key"].string))
    }
}

// MARK: - Minting in-process (as an app's backend would)

enum ProcessMint {
    static func minter(privateKeyPEM: String, provider: String, key: String) throws -> LayerTokenMinter {
        try LayerTokenMinter(
            privateKeyPEM: privateKeyPEM,
            providerID: try #require(UUID(uuidString: provider)),
            keyID: try #require(UUID(uuidString: key)))
    }
}
