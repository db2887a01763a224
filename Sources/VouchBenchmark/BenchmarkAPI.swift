import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import VouchProtocol
import VouchTokens

/// The calls the benchmark makes, as an app's client and backend would: over HTTP to a running
/// `vouch serve`, or straight to an in-process server's responder (`InProcessTransport`).
struct BenchmarkAPI: Sendable {
    struct World: Sendable {
        let appID: String
        let minter: LayerTokenMinter
        /// The provider key's public half, for the bare app's sign-in floor.
        let publicKeyPEM: String
    }

    let transport: any BenchmarkTransport
    let admin: String

    init(base: String, admin: String) {
        self.init(transport: HTTPTransport(base: base), admin: admin)
    }

    init(transport: any BenchmarkTransport, admin: String) {
        self.transport = transport
        self.admin = admin
    }

    /// - Parameter sessionTTL: the app's session lifetime, when not the server's default.
    func setUp(sessionTTL: Int? = nil) async throws -> World {
        let appBody = sessionTTL.map { #"{"name":"bench","session_ttl_seconds":\#($0)}"# } ?? #"{"name":"bench"}"#
        let app = try await call(.POST, "/admin/apps", appBody, admin: true, expect: 201)
        let provider = try await call(.POST, "/admin/providers", #"{"name":"bench"}"#, admin: true, expect: 201)
        let appID = try field(app, "id"), providerID = try field(provider, "id")
        let bare = { (id: String) in String(id.split(separator: "/").last ?? "") }
        _ = try await call(.PUT, "/admin/providers/\(bare(providerID))/apps/\(bare(appID))", nil, admin: true, expect: 204)
        let key = try await call(.POST, "/admin/providers/\(bare(providerID))/keys", #"{"generate":true}"#, admin: true, expect: 201)
        let privateKey = try RSAKeyPair.privateKey(pem: try field(key, "private_key"))
        let minter = try LayerTokenMinter(
            privateKey: privateKey, providerID: LayerID.parseProvider(providerID) ?? UUID(),
            keyID: LayerID.parseKey(try field(key, "id")) ?? UUID())
        return World(appID: appID, minter: minter, publicKeyPEM: RSAKeyPair(privateKey: privateKey).publicKeyPEM)
    }

    func nonce() async throws -> String {
        try field(try await call(.POST, "/nonces", nil, expect: 201), "nonce")
    }

    /// A whole sign-in; returns the session token.
    func signIn(_ world: World) async throws -> String {
        let token = try world.minter.mint(userID: "user-\(Int.random(in: 0..<1000))", nonce: try await nonce())
        let body = #"{"identity_token":"\#(token)","app_id":"\#(world.appID)"}"#
        return try field(try await call(.POST, "/sessions", body, expect: 201), "session_token")
    }

    /// Cuts off every session of the app; when its answer arrived.
    func cutOff(appID: String) async throws -> ContinuousClock.Instant {
        let bare = String(appID.split(separator: "/").last ?? "")
        _ = try await call(.POST, "/admin/apps/\(bare)/cutoff", #"{"reason":"benchmark"}"#, admin: true, expect: 200)
        return ContinuousClock.now
    }

    /// An access token for the session (PROTOCOL §8.16).
    func accessToken(_ session: String) async throws -> String {
        try field(
            try await call(.POST, "/sessions/access-token", nil, headers: ["Authorization": "Bearer \(session)"], expect: 200),
            "access_token")
    }

    /// A service credential of the app.
    func serviceCredential(appID: String) async throws -> String {
        let bare = String(appID.split(separator: "/").last ?? "")
        return try field(
            try await call(.POST, "/admin/apps/\(bare)/service-credentials", #"{"name":"benchmark"}"#, admin: true, expect: 201),
            "credential")
    }

    func currentUser(_ session: String) async throws {
        _ = try await call(.GET, "/users/me", nil, headers: ["Authorization": "Bearer \(session)"], expect: 200)
    }

    /// Registers a webhook endpoint of the app for `events` at `url`.
    func subscribe(appID: String, url: String, events: [String]) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["url": url, "events": events])
        let app = appID.split(separator: "/").last.map(String.init) ?? appID
        _ = try await call(.POST, "/admin/apps/\(app)/webhooks", String(decoding: body, as: UTF8.self), admin: true, expect: 201)
    }

    /// `POST /sessions` with a prepared body; the new session's public id.
    func signIn(body: String) async throws -> String {
        try field(try await call(.POST, "/sessions", body, expect: 201), "session_id")
    }

    private func call(
        _ method: HTTPMethod, _ path: String, _ body: String?, admin: Bool = false,
        headers: [String: String] = [:], expect: UInt
    ) async throws -> Data {
        var headers = headers
        if admin { headers["Authorization"] = "Bearer \(self.admin)" }
        if body != nil { headers["Content-Type"] = "application/json" }
        let (status, data) = try await transport.send(method.rawValue, path, headers: headers, body: body)
        guard status == expect else {
            throw BenchmarkError("\(method) \(path) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    private func field(_ data: Data, _ name: String) throws -> String {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let value = object[name] as? String else {
            throw BenchmarkError("no \(name) in \(String(decoding: data, as: UTF8.self))")
        }
        return value
    }
}

/// How a `BenchmarkAPI` call reaches the server.
protocol BenchmarkTransport: Sendable {
    func send(_ method: String, _ path: String, headers: [String: String], body: String?) async throws -> (status: UInt, body: Data)
}

/// Real HTTP to a running server.
struct HTTPTransport: BenchmarkTransport {
    let base: String
    /// The shared client keeps 8 connections a host: enough for set-up calls, a queue in front of
    /// a load.
    var client: HTTPClient = .shared

    func send(_ method: String, _ path: String, headers: [String: String], body: String?) async throws -> (status: UInt, body: Data) {
        var request = HTTPClientRequest(url: base + path)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        return (response.status.code, Data(buffer: try await response.body.collect(upTo: 1 << 20)))
    }
}
