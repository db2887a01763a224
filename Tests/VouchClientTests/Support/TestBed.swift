import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import VouchClient
import VouchDevelopmentIdentityProvider
import VouchServer
import VouchStore
import VouchStoreSQLite
import VouchTokens
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import VouchTestSupport

/// A real `vouch serve` (real HTTP on 127.0.0.1, SQLite in a temporary directory) with one app set
/// up through the admin API, and the development identity provider as that app's backend.
struct TestBed: Sendable {
    static let adminToken = "client-test-admin-token-0123456789"

    let serverURL: URL
    let appID: String
    let backendURL: URL
    /// A fresh private directory per test, for the client's storage.
    let scratch: URL
    /// Seconds added to the server's clock (for the clock-skew tests).
    let serverClockOffset: Shared<Int64>
    /// Starts a second instance of the server on the same store (see `secondInstance`).
    private let runSecondInstance: @Sendable (_ body: @Sendable (URL) async throws -> Void) async throws -> Void

    static func run(rateLimit: Int = 0, _ body: @Sendable (TestBed) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = {
            var logger = Logger(label: "vouch-client-test")
            logger.logLevel = .critical
            return logger
        }()
        // One connection per store, as in VouchServerTests' LiveServer (file descriptors).
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("vouch.sqlite").path, configuration: .init(readConnection: .never), logger: logger)
        let offset = Shared<Int64>(0)
        do {
            let port = Shared(0)
            let clocks = ServerClocks(
                now: { Int64(Date().timeIntervalSince1970) + offset.value },
                uptime: ServerClocks.system.uptime, sleep: ServerClocks.system.sleep)
            let server = try await VouchServer.makeApplication(
                configuration: serverConfiguration(rateLimit: rateLimit),
                store: store, logger: logger, clocks: clocks, onServerRunning: { port.set($0) })
            let runSecondInstance: @Sendable (@Sendable (URL) async throws -> Void) async throws -> Void = { body in
                let secondPort = Shared(0)
                let second = try await VouchServer.makeApplication(
                    configuration: serverConfiguration(rateLimit: rateLimit),
                    store: store, logger: logger, clocks: clocks, onServerRunning: { secondPort.set($0) })
                try await second.test(.live) { _ in try await body(URL(string: "http://127.0.0.1:\(secondPort.value)")!) }
            }
            try await server.test(.live) { _ in
                let serverURL = URL(string: "http://127.0.0.1:\(port.value)")!
                let admin = AdminAPI(serverURL: serverURL, token: adminToken)
                let setup = try await admin.setUpApp()
                let backendPort = Shared(0)
                let backend = DevelopmentIdentityProvider.makeApplication(
                    configuration: .init(host: "127.0.0.1", port: 0, layerMinter: setup.layerMinter, sinchMinter: setup.sinchMinter),
                    logger: logger, onServerRunning: { backendPort.set($0) })
                try await backend.test(.live) { _ in
                    let scratch = directory.appendingPathComponent("client-\(UUID().uuidString)")
                    try await body(
                        TestBed(
                            serverURL: serverURL, appID: setup.appID,
                            backendURL: URL(string: "http://127.0.0.1:\(backendPort.value)")!,
                            scratch: scratch, serverClockOffset: offset, runSecondInstance: runSecondInstance))
                }
            }
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// Loopback outbound is on, so that a provider's key source can be a JWKS on 127.0.0.1, with
    /// a fetch limit a loaded suite cannot exceed.
    static func serverConfiguration(rateLimit: Int) -> ServerConfiguration {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, rateLimit: rateLimit, adminToken: adminToken)
        configuration.allowsLoopbackOutbound = true
        configuration.keySources.fetchTimeLimit = .seconds(60)
        return configuration
    }

    var admin: AdminAPI { AdminAPI(serverURL: serverURL, token: Self.adminToken) }

    /// Runs `body` with a second instance of the server on the same store (its URL), and shuts
    /// that instance down gracefully when `body` returns, as SIGTERM would.
    func secondInstance<T: Sendable>(_ body: @escaping @Sendable (URL) async throws -> T) async throws -> T {
        let result = Shared<T?>(nil)
        try await runSecondInstance { url in result.set(try await body(url)) }
        guard let value = result.withLock({ $0 }) else { throw TestFailure("the second instance's body returned nothing") }
        return value
    }

    /// The app's backend as the client sees it, counting its calls.
    func backend(_ behaviour: Backend.Behaviour = .mint) -> Backend {
        Backend(url: backendURL, appID: appID, behaviour: behaviour)
    }

    /// How a test client's live channel is set up.
    enum LiveChannel {
        /// Off: the tests of the HTTP behaviour count their events exactly.
        case off
        /// On, over this transport.
        case over(any LiveChannelTransport)
        /// On, with the SDK's default transport (URLSession's).
        case platformDefault
    }

    /// A client for the app with its storage in this test's scratch directory.
    func client(
        backend: Backend? = nil, storage: URL? = nil, serverURL: URL? = nil, providerTimeout: Double = 30,
        retryPolicy: RetryPolicy = RetryPolicy(maximumAttempts: 3, initialDelaySeconds: 0.05, maximumDelaySeconds: 0.2),
        sessionOrigins: [URL] = [], device: DeviceDescription? = .thisDevice(), liveChannel: LiveChannel = .off
    ) throws -> VouchClient {
        let transport: (any LiveChannelTransport)? =
            switch liveChannel {
            case .over(let transport): transport
            case .off, .platformDefault: nil
            }
        return try VouchClient(
            serverURL: serverURL ?? self.serverURL, appID: appID,
            configuration: .init(
                storageDirectory: storage ?? scratch,
                credentialStore: FileCredentialStore(directory: storage ?? scratch),
                identityTokenProvider: backend?.identityTokenProvider,
                registrationCredentialsProvider: backend?.registrationProvider,
                providerTimeoutSeconds: providerTimeout, retryPolicy: retryPolicy, sessionOrigins: sessionOrigins,
                device: device, liveChannel: liveChannel.isOn, liveChannelTransport: transport))
    }

    /// `GET /users/me` with a raw session token, bypassing the client: what the server thinks.
    func serverStatus(ofSession token: String) async throws -> Int {
        var request = URLRequest(url: serverURL.appendingPathComponent("users/me"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

extension TestBed.LiveChannel {
    var isOn: Bool {
        if case .off = self { return false }
        return true
    }
}
