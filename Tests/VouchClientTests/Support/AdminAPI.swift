import Foundation
import VouchTokens
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import VouchTestSupport

/// The operator's side, over the admin API: what the tests do to the server behind the client's back.
struct AdminAPI: Sendable {
    let serverURL: URL
    let token: String

    struct AppSetup: Sendable {
        let appID: String
        let layerMinter: LayerTokenMinter
        let sinchMinter: SinchTokenMinter
    }

    /// An app, a provider bound to it with a generated key, and a registration secret.
    func setUpApp() async throws -> AppSetup {
        let app = try await call("POST", "admin/apps", ["name": "Chat"]).string("id")
        let provider = try await call("POST", "admin/providers", ["name": "Backend"]).string("id")
        _ = try await call("PUT", "admin/providers/\(bare(provider))/apps/\(bare(app))", expect: 204)
        let key = try await call("POST", "admin/providers/\(bare(provider))/keys", ["generate": true])
        let secret = try await call("POST", "admin/apps/\(bare(app))/registration-secrets")
        return AppSetup(
            appID: app,
            layerMinter: try LayerTokenMinter(
                privateKeyPEM: try key.string("private_key"),
                providerID: UUID(uuidString: bare(provider))!, keyID: UUID(uuidString: bare(try key.string("id")))!),
            sinchMinter: try SinchTokenMinter(
                applicationKey: try secret.string("application_key"),
                applicationSecret: try secret.string("application_secret")))
    }

    func suspend(_ userID: String, appID: String, _ suspended: Bool = true) async throws {
        _ = try await call("PATCH", "admin/apps/\(bare(appID))/users/\(escape(userID))", ["suspended": suspended], expect: 200)
    }

    /// Ends every session of the user (the operator's revocation).
    func revokeSessions(of userID: String, appID: String) async throws {
        _ = try await call("DELETE", "admin/apps/\(bare(appID))/users/\(escape(userID))/sessions", expect: 204)
    }

    /// Sets how long a live challenge waits for its answer before the socket closes with 4001.
    func setChallengeMargin(_ seconds: Int, appID: String) async throws {
        _ = try await call("PATCH", "admin/apps/\(bare(appID))", ["challenge_margin_seconds": seconds], expect: 200)
    }

    /// Revokes one session by its public id (`DELETE /admin/sessions/<session_id>`).
    func revokeSession(_ sessionID: String) async throws {
        _ = try await call("DELETE", "admin/sessions/\(sessionID)", expect: 204)
    }

    func activeSessions(of userID: String, appID: String) async throws -> Int {
        let answer = try await call("GET", "admin/apps/\(bare(appID))/users/\(escape(userID))", expect: 200)
        return answer.json["active_sessions"] as? Int ?? -1
    }

    /// The user's live sessions as the operator sees them, oldest first, each with its `device`
    /// object (or none).
    func sessions(of userID: String, appID: String) async throws -> [[String: Any]] {
        let answer = try await call("GET", "admin/apps/\(bare(appID))/users/\(escape(userID))/sessions", expect: 200)
        guard let sessions = answer.json["sessions"] as? [[String: Any]] else { throw TestFailure("no sessions in \(answer.json)") }
        return sessions
    }

    struct Answer {
        let json: [String: Any]
        func string(_ name: String) throws -> String {
            guard let value = json[name] as? String else { throw TestFailure("no \(name) in \(json)") }
            return value
        }
    }

    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, expect: Int = 201) async throws -> Answer {
        var request = URLRequest(url: serverURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == expect else { throw TestFailure("\(method) /\(path) answered \(status): \(String(decoding: data, as: UTF8.self))") }
        return Answer(json: (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    private func bare(_ id: String) -> String { String(id.split(separator: "/").last ?? "") }
    private func escape(_ userID: String) -> String {
        userID.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? userID
    }
}
