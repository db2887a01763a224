import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import VouchResourceServer

/// The parts of a Vouch server a resource server talks to, on 127.0.0.1 over real HTTP, in the
/// test's hands: the JWKS (its keys, its `Cache-Control`, an outage) and the stream of endings
/// (what it sends, when it hangs up). It counts what it is asked.
final class TestVouch: Sendable {
    struct StreamConnection: Sendable {
        let authorization: String?
        let lastEventID: String?
        let accept: String?
        /// `?types=` of the request.
        let types: String?
    }

    private struct State: Sendable {
        var keys: [TestSigningKey] = []
        var cacheControl: String? = "public, max-age=300"
        var failing = false
        /// Bytes of padding added to the JWKS document (an oversized answer).
        var padding = 0
        /// The stream answers 401 to any other credential.
        var credential = "vsc_test-credential"
        var jwksRequests = 0
        var attackerRequests = 0
        var streamConnections: [StreamConnection] = []
        var streams: [AsyncStream<String>.Continuation] = []
        /// Sent first on every new stream connection.
        var streamPreamble = "retry: 1000\n\n"
    }

    let port: Int
    /// The key published from the start, which `token(...)` signs with.
    let signingKey = TestSigningKey("key-1")
    private let state = Mutex(State())

    var issuer: String { "http://127.0.0.1:\(port)" }
    var url: URL { URL(string: issuer)! }

    private init(port: Int) {
        self.port = port
    }

    // MARK: The JWKS

    func publish(_ keys: [TestSigningKey]) { state.withLock { $0.keys = keys } }
    func setCacheControl(_ value: String?) { state.withLock { $0.cacheControl = value } }
    func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }
    func setPadding(_ bytes: Int) { state.withLock { $0.padding = bytes } }
    /// A URL that redirects to the JWKS.
    var redirectingURL: URL { URL(string: "\(issuer)/redirect/jwks.json")! }
    /// A URL that never answers (until the server stops).
    var hangingURL: URL { URL(string: "\(issuer)/hang/jwks.json")! }
    /// Every GET of the JWKS, answered or failed.
    var jwksRequests: Int { state.withLock { $0.jwksRequests } }
    /// Every GET of the URL a malicious token's `jku`/`x5u` points at.
    var attackerRequests: Int { state.withLock { $0.attackerRequests } }
    var attackerURL: String { "\(issuer)/attacker/jwks.json" }

    // MARK: The stream of endings

    var streamConnections: [StreamConnection] { state.withLock { $0.streamConnections } }
    func setStreamPreamble(_ text: String) { state.withLock { $0.streamPreamble = text } }

    /// Sends raw text to every open stream.
    func send(_ text: String) {
        for stream in state.withLock({ $0.streams }) { stream.yield(text) }
    }

    /// Sends one security event as Vouch's stream does: `type`, with `data`, about `user` (none for
    /// an event about the app's catalogue).
    func sendEvent(id: Int, _ type: String, user: String? = "alice", app: UUID = TestClaims.appID, _ data: [String: Any]) {
        var event: [String: Any] = [
            "id": UUID().uuidString.lowercased(), "type": type, "time": "2027-01-15T08:00:00Z",
            "app_id": app.uuidString.lowercased(), "data": data,
        ]
        if let user {
            event["user_id"] = user
            event["sequence"] = id
        }
        send("id: \(id)\nevent: \(type)\ndata: \(jsonText(event))\n\n")
    }

    /// Ends every open stream (the server hangs up).
    func hangUp() {
        let streams = state.withLock { state in
            defer { state.streams = [] }
            return state.streams
        }
        for stream in streams { stream.finish() }
    }

    private func jwksResponse() -> Response {
        let (failing, keys, cacheControl, padding) = state.withLock { state in
            state.jwksRequests += 1
            return (state.failing, state.keys, state.cacheControl, state.padding)
        }
        if failing { return Response(status: .serviceUnavailable) }
        var headers: HTTPFields = [.contentType: "application/json"]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        var document: [String: Any] = ["keys": keys.map(\.jwk)]
        if padding > 0 { document["padding"] = String(repeating: "x", count: padding) }
        let body = jsonText(document)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// Waits until the server hangs up, without answering.
    private func hang() async {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        state.withLock { $0.streams.append(continuation) }
        for await _ in stream {}
    }

    private func streamResponse(_ request: Request) -> Response {
        let connection = StreamConnection(
            authorization: request.headers[.authorization], lastEventID: request.headers.first { $0.name.canonicalName == "last-event-id" }?.value,
            accept: request.headers[.accept], types: request.uri.queryParameters.get("types"))
        let (preamble, credential) = state.withLock { state in
            state.streamConnections.append(connection)
            return (state.streamPreamble, state.credential)
        }
        guard connection.authorization == "Bearer \(credential)" else {
            return Response(status: .unauthorized, headers: [.contentType: "application/json"])
        }
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        state.withLock { $0.streams.append(continuation) }
        continuation.yield(preamble)
        // A comment every 10 s, as Vouch sends one every 15 s: without it a follower's 45 s read
        // timeout drops a quiet stream on a slow run, and this fixture replays nothing.
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(10))
                continuation.yield(": keep-alive\n\n")
            }
        }
        continuation.onTermination = { _ in keepAlive.cancel() }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: ResponseBody { writer in
                for await text in stream { try await writer.write(ByteBuffer(string: text)) }
                try await writer.finish(nil)
            })
    }

    /// Starts the server, runs `body`, and stops the server (hanging up every stream first).
    static func run<Value: Sendable>(_ body: @Sendable (TestVouch) async throws -> Value) async throws -> Value {
        let router = Router()
        let vouch = Shared<TestVouch?>(nil)
        router.get("/.well-known/jwks.json") { _, _ in vouch.value!.jwksResponse() }
        router.get("/attacker/jwks.json") { _, _ -> Response in
            vouch.value!.state.withLock { $0.attackerRequests += 1 }
            return Response(status: .ok)
        }
        router.get("/events") { request, _ in vouch.value!.streamResponse(request) }
        router.get("/redirect/jwks.json") { _, _ in
            Response(status: .found, headers: [.location: "/.well-known/jwks.json"])
        }
        router.get("/hang/jwks.json") { _, _ -> Response in
            await vouch.value!.hang()
            return Response(status: .serviceUnavailable)
        }
        var logger = Logger(label: "test-vouch")
        logger.logLevel = .warning
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        return try await app.test(.live) { client in
            let server = TestVouch(port: client.port!)
            server.publish([server.signingKey])
            vouch.set(server)
            do {
                let value = try await body(server)
                server.hangUp()
                return value
            } catch {
                server.hangUp()
                throw error
            }
        }
    }
}

/// A value set once the server knows its port, read by its handlers.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func set(_ value: Value) { storage.withLock { $0 = value } }
}

extension TestVouch {
    /// A verifier of this server's tokens for `TestClaims.audience`, on the test's clock.
    func verifier(
        clock: TestClock, _ configure: (inout AccessTokenVerifier.Configuration) -> Void = { _ in }
    ) -> AccessTokenVerifier {
        var configuration = AccessTokenVerifier.Configuration(issuer: issuer, audience: TestClaims.audience)
        // A fetch that fails is retried only after `retryInterval` of the test's clock, which these
        // tests do not move: a generous timeout keeps a loaded machine from failing the first one.
        configuration.fetchTimeout = .seconds(60)
        configure(&configuration)
        var logger = Logger(label: "test-verifier")
        logger.logLevel = .critical
        return AccessTokenVerifier(configuration: configuration, logger: logger, now: clock.closure)
    }

    /// Claims as Vouch would write them now.
    func claims(clock: TestClock, _ change: (inout TestClaims) -> Void = { _ in }) -> TestClaims {
        var claims = TestClaims(issuer: issuer, now: clock.now)
        change(&claims)
        return claims
    }

    /// A token as Vouch would mint it now, signed with `key` (the published key by default).
    func token(clock: TestClock, key: TestSigningKey? = nil, _ change: (inout TestClaims) -> Void = { _ in }) -> String {
        (key ?? signingKey).sign(claims: claims(clock: clock, change).dictionary)
    }
}
