import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import VouchProtocol
import VouchTokens

/// The HTTP calls the benchmark makes, as an app's client and backend would.
struct BenchmarkAPI: Sendable {
    struct World: Sendable {
        let appID: String
        let minter: LayerTokenMinter
        /// The provider key's public half, for the bare app's sign-in floor.
        let publicKeyPEM: String
    }

    let base: String
    let admin: String

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

    func currentUser(_ session: String) async throws {
        _ = try await call(.GET, "/users/me", nil, headers: ["Authorization": "Bearer \(session)"], expect: 200)
    }

    private func call(_ method: HTTPMethod, _ path: String, _ body: String?, admin: Bool = false,
                      headers: [String: String] = [:], expect: UInt) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if admin { request.headers.add(name: "Authorization", value: "Bearer \(self.admin)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        guard response.status.code == expect else {
            throw BenchmarkError("\(method) \(path) answered \(response.status.code): \(String(decoding: data, as: UTF8.self))")
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
