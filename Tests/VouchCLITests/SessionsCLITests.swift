import Foundation
import Testing
import VouchTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("vouch sessions and vouch cutoff against a real server", .enabled(if: CLI.binaryExists || CLI.inCI, Comment(rawValue: CLI.binaryMissing)))
struct SessionsCLITests {
    @Test("sessions list shows each device; sessions revoke ends one; unknown and malformed ids are clear errors")
    func sessions() async throws {
        try await SpawnedServer.run { server in
            let world = try await SignInWorld(server)
            defer { world.cleanup() }
            let phone = try await world.signIn(user: "alice smith/1", device: ["name": "Alice's phone", "platform": "iOS 18.1", "app_version": "2.4.1"])
            let laptop = try await world.signIn(user: "alice smith/1", device: nil)

            let table = try await server.admin(["sessions", "list", world.app, "alice smith/1"])
            #expect(table.succeeded, "\(table)")
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(table)")
            #expect(lines.first?.hasPrefix("SESSION") == true && lines.first?.contains("LAST SEEN") == true, "\(table)")
            #expect(lines[1].hasPrefix(phone.id) && lines[1].contains("Alice's phone") && lines[1].contains("iOS 18.1"), "\(table)")
            #expect(lines[1].contains("2.4.1"), "\(table)")
            #expect(lines[2].hasPrefix(laptop.id + "  -  "), "a session without a device: \(table)")
            #expect(lines[1].range(of: "iOS")?.lowerBound.utf16Offset(in: lines[1]) == lines[0].range(of: "PLATFORM")?.lowerBound.utf16Offset(in: lines[0]))

            let json = try await server.admin(["sessions", "list", world.app, "alice smith/1", "--json"])
            let sessions = try #require(try CLI.jsonObject(json.stdout)["sessions"] as? [[String: Any]], "\(json)")
            #expect(sessions.map { $0["session_id"] as? String } == [phone.id, laptop.id])
            #expect((sessions.first?["device"] as? [String: Any])?["app_version"] as? String == "2.4.1")

            let revoked = try await server.admin(["sessions", "revoke", phone.id.uppercased()])
            #expect(revoked.succeeded && revoked.output == "\(phone.id)  revoked", "\(revoked)")
            #expect(try await world.challenge(phone.token)?.reason == "session_revoked")
            #expect(try await world.challenge(laptop.token) == nil)
            #expect(!(try await server.admin(["sessions", "list", world.app, "alice smith/1"])).stdout.contains(phone.id))
            let revokedJSON = try await server.admin(["sessions", "revoke", laptop.id, "--json"])
            #expect(try CLI.jsonObject(revokedJSON.stdout)["status"] as? String == "revoked", "\(revokedJSON)")
            #expect(try await server.admin(["sessions", "list", world.app, "alice smith/1"]).output == "no live sessions")

            let unknown = try await server.admin(["sessions", "revoke", UUID().uuidString])
            #expect(unknown.status == 1 && unknown.stderr.contains("404") && unknown.stderr.contains("not_found"), "\(unknown)")
            let malformed = try await server.admin(["sessions", "revoke", "phone"])
            #expect(malformed.status == 1 && malformed.stderr.contains("not a session id: phone"), "\(malformed)")
            let noApp = try await server.admin(["sessions", "list", "layer:///apps/\(UUID().uuidString)", "alice"])
            #expect(noApp.status == 1 && noApp.stderr.contains("404"), "\(noApp)")
        }
    }

    @Test("cutoff show changes nothing; cutoff key|app|provider|user end sessions with the reason; refusals exit 1")
    func cutoffs() async throws {
        try await SpawnedServer.run { server in
            let world = try await SignInWorld(server)
            defer { world.cleanup() }
            let first = try await world.signIn(user: "alice", device: nil)
            _ = try await world.signIn(user: "bob", device: nil)

            let never = try await server.admin(["cutoff", "show", "key", world.key])
            #expect(never.succeeded && never.output == "\(world.key)  never cut off  live sessions: 2", "\(never)")
            #expect(try await world.challenge(first.token) == nil, "show ends nothing")

            let cut = try await server.admin(["cutoff", "key", world.key, "--reason", "laptop stolen"])
            #expect(cut.succeeded, "\(cut)")
            let cutLines = cut.stdout.split(separator: "\n").map(String.init)
            #expect(cutLines.count == 2 && cutLines[0].hasPrefix("\(world.key)  cut off at ") && cutLines[0].hasSuffix("  2 sessions ended"), "\(cut)")
            #expect(cutLines[1] == "reason: laptop stolen", "\(cut)")
            let challenge = try await world.challenge(first.token)
            #expect(challenge?.reason == "session_revoked" && challenge?.detail == "laptop stolen")

            let shown = try await server.admin(["cutoff", "show", "key", world.key, "--json"])
            let status = try CLI.jsonObject(shown.stdout)
            #expect((status["cutoff"] as? [String: Any])?["reason"] as? String == "laptop stolen", "\(shown)")
            #expect(status["live_sessions"] as? Int == 0 && status["scope"] as? String == "key")
            #expect(try await server.admin(["cutoff", "show", "key", world.key]).stdout.contains("last cutoff 20"))

            let again = try await world.signIn(user: "alice", device: nil)
            let user = try await server.admin(["cutoff", "user", world.app, "alice", "--json"])
            #expect(try CLI.jsonObject(user.stdout)["sessions_ended"] as? Int == 1, "\(user)")
            #expect(try CLI.jsonObject(user.stdout)["reason"] is NSNull, "\(user)")
            #expect(try await world.challenge(again.token)?.reason == "session_revoked")
            let app = try await server.admin(["cutoff", "app", world.app])
            #expect(app.succeeded && app.output.hasSuffix("0 sessions ended") && !app.output.contains("reason"), "\(app)")
            _ = try await world.signIn(user: "carol", device: nil)
            let provider = try await server.admin(["cutoff", "provider", world.provider, "--reason", "rotation"])
            #expect(provider.succeeded && provider.stdout.contains("1 session ended"), "\(provider)")
            #expect(try await server.admin(["cutoff", "show", "app", world.app]).stdout.contains("live sessions: 0"))
            #expect(try await server.admin(["cutoff", "show", "user", world.app, "alice"]).stdout.contains("last cutoff"))

            let empty = try await server.admin(["cutoff", "app", world.app, "--reason", ""])
            #expect(empty.status == 1 && empty.stderr.contains("422") && empty.stderr.contains("reason"), "\(empty)")
            let long = try await server.admin(["cutoff", "app", world.app, "--reason", String(repeating: "x", count: 257)])
            #expect(long.status == 1 && long.stderr.contains("1…256 bytes"), "\(long)")
            let control = try await server.admin(["cutoff", "app", world.app, "--reason", "a\tb"])
            #expect(control.status == 1 && control.stderr.contains("control"), "\(control)")
            let unknownApp = try await server.admin(["cutoff", "app", UUID().uuidString])
            #expect(unknownApp.status == 1 && unknownApp.stderr.contains("404") && unknownApp.stderr.contains("App"), "\(unknownApp)")
            let unknownUser = try await server.admin(["cutoff", "user", world.app, "nobody"])
            #expect(unknownUser.status == 1 && unknownUser.stderr.contains("404"), "\(unknownUser)")
            let badID = try await server.admin(["cutoff", "show", "provider", "nope"])
            #expect(badID.status == 1 && badID.stderr.contains("not a provider id"), "\(badID)")
            #expect(try await server.admin(["keys", "delete", world.key]).succeeded)
            let deleted = try await server.admin(["cutoff", "key", world.key])
            #expect(deleted.status == 1 && deleted.stderr.contains("409") && deleted.stderr.contains("deleted"), "\(deleted)")
        }
    }

    @Test("--help names every cutoff scope and how to look without cutting off")
    func help() async throws {
        let help = try await CLI.vouch(["cutoff", "--help"])
        #expect(help.succeeded, "\(help)")
        for word in ["app", "provider", "key", "user", "show", "vouch cutoff show"] { #expect(help.stdout.contains(word), "\(help)") }
        let top = try await CLI.vouch(["--help"])
        #expect(top.stdout.contains("sessions") && top.stdout.contains("cutoff"), "\(top)")
    }
}

/// An app, a bound provider and an uploaded key on a spawned server, and sign-ins to it as an
/// app's client makes them: a nonce, a token minted by `vouch token mint`, `POST /sessions`.
struct SignInWorld {
    let server: SpawnedServer
    let app: String
    let provider: String
    let key: String
    let keys: URL

    init(_ server: SpawnedServer) async throws {
        self.server = server
        keys = try CLI.temporaryDirectory()
        func id(_ result: CLI.Result) throws -> String {
            try #require(try CLI.jsonObject(result.stdout)["id"] as? String, "\(result)")
        }
        app = try id(try await server.admin(["apps", "create", "--name", "Chat", "--json"]))
        provider = try id(try await server.admin(["providers", "create", "--name", "Backend", "--json"]))
        try #require(try await server.admin(["providers", "bind", provider, app]).succeeded)
        try #require(try await CLI.vouch(["keys", "generate", "--out", keys.path]).succeeded)
        key = try id(
            try await server.admin(["keys", "upload", provider, "--public-key", keys.appendingPathComponent("public.pem").path, "--json"]))
    }

    func cleanup() { try? FileManager.default.removeItem(at: keys) }

    /// Signs `user` in with `device`; returns the session's public id and token.
    func signIn(user: String, device: [String: String]?) async throws -> (id: String, token: String) {
        let nonce = try #require(try await post("/nonces", nil).json["nonce"] as? String)
        let minted = try await CLI.vouch([
            "token", "mint", "--provider-id", provider, "--key-id", key, "--private-key",
            keys.appendingPathComponent("private.pem").path, "--user-id", user, "--nonce=" + nonce,
        ])
        try #require(minted.succeeded, "\(minted)")
        var body: [String: Any] = ["identity_token": minted.output, "app_id": app]
        if let device { body["device"] = device }
        let answer = try await post("/sessions", body)
        try #require(answer.status == 201, "\(answer.json)")
        return (try #require(answer.json["session_id"] as? String), try #require(answer.json["session_token"] as? String))
    }

    /// The 401 a session's client gets (`data.reason`, `data.detail`), `nil` while it works.
    func challenge(_ token: String) async throws -> (reason: String?, detail: String?)? {
        var request = URLRequest(url: URL(string: server.url + "/users/me")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (status, json) = try await Self.send(request)
        guard status != 200 else { return nil }
        let data = json["data"] as? [String: Any]
        return (data?["reason"] as? String, data?["detail"] as? String)
    }

    private func post(_ path: String, _ body: [String: Any]?) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: server.url + path)!)
        request.httpMethod = "POST"
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        return try await Self.send(request)
    }

    private static func send(_ request: URLRequest) async throws -> (status: Int, json: [String: Any]) {
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
    }
}
