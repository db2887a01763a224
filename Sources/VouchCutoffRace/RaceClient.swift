import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import VouchTokens

/// HTTP to the two instances: the admin calls, sign-ins (a nonce bound to the app, then the
/// token minted for it) and the session checks.
struct RaceClient: Sendable {
    let instances: [TwoInstances.Instance]
    let adminToken: String
    private let http = HTTPClient(eventLoopGroupProvider: .singleton)

    init(instances running: TwoInstances.Running) {
        self.instances = running.instances
        self.adminToken = running.adminToken
    }

    func shutdown() {
        try? http.syncShutdown()
    }

    struct Answer {
        let status: Int
        let json: [String: Any]
    }

    func request(
        _ method: HTTPMethod, _ path: String, on instance: Int, body: [String: Any]? = nil,
        authorization: String? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: instances[instance].baseURL + path)
        request.method = method
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
        return Answer(status: Int(response.status.code), json: json)
    }

    /// An admin call through the first instance that must succeed.
    func admin(_ method: HTTPMethod, _ path: String, body: [String: Any]? = nil) async throws -> [String: Any] {
        let answer = try await request(method, path, on: 0, body: body, authorization: "Bearer \(adminToken)")
        guard (200..<300).contains(answer.status) else { throw RaceError("\(method) \(path) answered \(answer.status): \(answer.json)") }
        return answer.json
    }

    /// A complete sign-in through `instance`; the session token.
    func signIn(_ signer: RaceSigner, app: UUID, user: String, on instance: Int) async throws -> String {
        let appID = "layer:///apps/" + app.uuidString.lowercased()
        let nonce = try await request(.POST, "/nonces", on: instance, body: ["app_id": appID])
        guard let value = nonce.json["nonce"] as? String else { throw RaceError("POST /nonces answered \(nonce.status)") }
        let token = try signer.minter.mint(userID: user, nonce: value, issuedAt: Int64(Date().timeIntervalSince1970))
        let answer = try await request(.POST, "/sessions", on: instance, body: ["identity_token": token, "app_id": appID])
        guard answer.status == 201, let session = answer.json["session_token"] as? String else {
            throw RaceError("sign-in on \(instances[instance].name) answered \(answer.status): \(answer.json)")
        }
        return session
    }

    /// `GET /users/me` with the session: its status and challenge reason.
    func check(_ session: String, on instance: Int) async throws -> (status: Int, reason: String?) {
        let answer = try await request(.GET, "/users/me", on: instance, authorization: "Bearer \(session)")
        return (answer.status, (answer.json["data"] as? [String: Any])?["reason"] as? String)
    }
}

/// A provider key that signs the race's identity tokens.
struct RaceSigner: Sendable {
    let keyID: UUID
    let providerID: UUID
    let minter: LayerTokenMinter
}
