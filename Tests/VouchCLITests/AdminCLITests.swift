import Foundation
import Testing
import VouchTestSupport

/// A real `vouch serve` for the admin CLI to talk to: port 0, a temporary data directory, the
/// admin token the server generated into it on first start. Stopped with SIGTERM.
final class SpawnedServer {
    let process: ChildProcess
    let directory: URL
    let url: String
    var tokenFile: String { directory.appendingPathComponent("data/admin-token").path }

    init() async throws {
        directory = try CLI.temporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["VOUCH_ADMIN_TOKEN"] = nil
        let outputURL = directory.appendingPathComponent("serve.out")
        process = try ChildProcess(
            executable: CLI.binary.path,
            arguments: [
                "serve", "--port", "0", "--data-dir", directory.appendingPathComponent("data").path,
                "--rate-limit", "0",
            ],
            environment: environment, standardOutput: outputURL.path)
        // Wait for the line that names the port (a condition, with a generous deadline).
        var printed = ""
        let deadline = ContinuousClock.now + .seconds(120)
        while !printed.contains("listening on"), process.isRunning, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            printed = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        }
        guard let found = printed.split(separator: "\n").first(where: { $0.contains("listening on") })?.split(separator: " ").last else {
            process.send(SIGTERM)
            throw CLITestFailure("vouch serve did not start: \(printed)")
        }
        url = String(found)
    }

    func stop() {
        process.send(SIGTERM)
        _ = process.waitForExitBlocking()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `vouch <arguments> --server <url> --admin-token-file <file>`.
    func admin(_ arguments: [String]) async throws -> CLI.Result {
        try await CLI.vouch(arguments + ["--server", url, "--admin-token-file", tokenFile])
    }

    static func run(_ body: (SpawnedServer) async throws -> Void) async throws {
        let server = try await SpawnedServer()
        do {
            try await body(server)
        } catch {
            server.stop()
            throw error
        }
        server.stop()
    }
}

struct CLITestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("Admin CLI against a real server", .enabled(if: CLI.binaryExists || CLI.inCI, Comment(rawValue: CLI.binaryMissing)))
struct AdminCLITests {
    @Test("apps, providers, keys, users and secrets, in text and --json")
    func walkthrough() async throws {
        try await SpawnedServer.run { server in
            let created = try await server.admin(["apps", "create", "--name", "Chat", "--session-ttl", "3600", "--json"])
            #expect(created.succeeded, "\(created)")
            let app = try #require(try CLI.jsonObject(created.stdout)["id"] as? String)
            #expect(app.hasPrefix("layer:///apps/"))
            let list = try await server.admin(["apps", "list"])
            #expect(list.succeeded && list.stdout.contains(app) && list.stdout.contains("Chat"), "\(list)")
            let renamed = try await server.admin(["apps", "update", app, "--name", "Talk", "--json"])
            #expect(try CLI.jsonObject(renamed.stdout)["name"] as? String == "Talk")
            #expect(try CLI.jsonObject(renamed.stdout)["session_ttl_seconds"] as? Int == 3600)
            let shown = try await server.admin(["apps", "show", String(app.split(separator: "/").last!).uppercased()])
            #expect(shown.stdout.contains("Talk"), "\(shown)")

            let providerAnswer = try await server.admin(["providers", "create", "--name", "Backend", "--json"])
            let provider = try #require(try CLI.jsonObject(providerAnswer.stdout)["id"] as? String)
            let bind = try await server.admin(["providers", "bind", provider, app, "--json"])
            #expect(try CLI.jsonObject(bind.stdout)["bound"] as? Bool == true, "\(bind)")
            #expect(try await server.admin(["providers", "show", provider]).stdout.contains("may vouch for \(app)"))

            let keyDirectory = try CLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: keyDirectory) }
            #expect(try await CLI.vouch(["keys", "generate", "--out", keyDirectory.path]).succeeded)
            let uploaded = try await server.admin([
                "keys", "upload", provider, "--public-key",
                keyDirectory.appendingPathComponent("public.pem").path, "--json",
            ])
            let key = try #require(try CLI.jsonObject(uploaded.stdout)["id"] as? String, "\(uploaded)")
            #expect(try await server.admin(["keys", "disable", key]).stdout.contains("disabled"))
            #expect(try await server.admin(["keys", "enable", key]).stdout.contains("active"))
            #expect(try await server.admin(["keys", "list", provider]).stdout.contains(key))
            let deleted = try await server.admin(["keys", "delete", key, "--json"])
            #expect(try CLI.jsonObject(deleted.stdout)["status"] as? String == "deleted")
            // A deleted key cannot change: the server's 409 is the CLI's error, exit 1.
            let refused = try await server.admin(["keys", "enable", key])
            #expect(refused.status == 1 && refused.stderr.contains("409"), "\(refused)")

            let suspended = try await server.admin(["users", "suspend", app, "alice smith/1", "--json"])
            #expect(try CLI.jsonObject(suspended.stdout)["suspended"] as? Bool == true, "\(suspended)")
            #expect(try await server.admin(["users", "show", app, "alice smith/1"]).stdout.contains("suspended"))
            #expect(try await server.admin(["users", "unsuspend", app, "alice smith/1"]).stdout.contains("active"))
            #expect(try await server.admin(["users", "revoke-sessions", app, "alice smith/1"]).stdout.contains("active sessions: 0"))

            let secret = try await server.admin(["secrets", "create", app, "--json"])
            let secretValue = try #require(try CLI.jsonObject(secret.stdout)["application_secret"] as? String, "\(secret)")
            #expect(Data(base64Encoded: secretValue)?.count == 32)
        }
    }

    @Test("audit list: what was just done, in text and --json, filtered and paged with --before; keys list shows last verified")
    func auditList() async throws {
        try await SpawnedServer.run { server in
            let created = try await server.admin(["apps", "create", "--name", "Audited", "--json"])
            let app = try #require(try CLI.jsonObject(created.stdout)["id"] as? String, "\(created)")
            _ = try await server.admin(["apps", "create", "--name", "Second"])
            _ = try await server.admin(["users", "suspend", app, "alice smith/1"])
            let provider = try #require(try CLI.jsonObject(try await server.admin(["providers", "create", "--name", "B", "--json"]).stdout)["id"] as? String)
            let keyDirectory = try CLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: keyDirectory) }
            #expect(try await CLI.vouch(["keys", "generate", "--out", keyDirectory.path]).succeeded)
            _ = try await server.admin(["keys", "upload", provider, "--public-key", keyDirectory.appendingPathComponent("public.pem").path])
            #expect(try await server.admin(["keys", "list", provider]).stdout.contains("last verified: never"))

            let text = try await server.admin(["audit", "list"])
            #expect(text.succeeded, "\(text)")
            let lines = text.stdout.split(separator: "\n")
            #expect(lines.count == 5, "\(text)")
            #expect(lines.first?.contains("api  key.create  ok") == true, "\(text)")
            #expect(lines.last?.contains("api  app.create  ok  app=\(app)") == true, "\(text)")

            let json = try await server.admin(["audit", "list", "--json", "--action", "app.create"])
            let entries = try #require(try CLI.jsonObject(json.stdout)["events"] as? [[String: Any]], "\(json)")
            #expect(entries.count == 2)
            #expect(entries.allSatisfy { $0["actor"] as? String == "api" && ($0["detail"] as? [String: Any])?["outcome"] as? String == "ok" })

            let user = try await server.admin(["audit", "list", "--object", "alice smith/1", "--app", app])
            #expect(user.stdout.contains("user.suspend") && user.stdout.contains("user=alice smith/1"), "\(user)")

            let first = try await server.admin(["audit", "list", "--kind", "admin", "--limit", "3"])
            let more = try #require(first.stdout.split(separator: "\n").last.flatMap { $0.split(separator: " ").last }, "\(first)")
            #expect(first.stdout.contains("more: --before"), "\(first)")
            let rest = try await server.admin(["audit", "list", "--kind", "admin", "--limit", "3", "--before", String(more)])
            #expect(rest.stdout.split(separator: "\n").count == 2, "\(rest)")
            #expect(rest.stdout.contains("app.create") && !rest.stdout.contains("more:"), "\(rest)")

            let bogus = try await server.admin(["audit", "list", "--kind", "bogus"])
            #expect(bogus.status == 1 && bogus.stderr.contains("kind"), "\(bogus)")
            let badLimit = try await server.admin(["audit", "list", "--limit", "0"])
            #expect(badLimit.status != 0 && badLimit.stderr.contains("--limit"), "\(badLimit)")
            let badTime = try await server.admin(["audit", "list", "--since", "yesterday"])
            #expect(badTime.status == 1 && badTime.stderr.contains("since"), "\(badTime)")
        }
    }

    @Test("clear errors and non-zero exits: bad ids, wrong token, unknown objects, no server")
    func errors() async throws {
        try await SpawnedServer.run { server in
            let badID = try await server.admin(["apps", "show", "not-an-id"])
            #expect(badID.status == 1 && badID.stderr.contains("not an app id"), "\(badID)")
            let missing = try await server.admin(["apps", "show", UUID().uuidString])
            #expect(missing.status == 1 && missing.stderr.contains("404") && missing.stderr.contains("not_found"), "\(missing)")
            let tooShort = try await server.admin(["apps", "create", "--name", "x", "--session-ttl", "5"])
            #expect(tooShort.status == 1 && tooShort.stderr.contains("session_ttl_seconds"), "\(tooShort)")

            let wrongToken = server.directory.appendingPathComponent("wrong-token")
            try Data("wrong\n".utf8).write(to: wrongToken)
            let denied = try await CLI.vouch(["apps", "list", "--server", server.url, "--admin-token-file", wrongToken.path])
            #expect(denied.status == 1 && denied.stderr.contains("access_denied"), "\(denied)")
            let noFile = try await CLI.vouch(["apps", "list", "--server", server.url, "--admin-token-file", "/nonexistent/token"])
            #expect(noFile.status == 1 && noFile.stderr.contains("cannot read"), "\(noFile)")
        }
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = directory.appendingPathComponent("token")
        try Data("some-token".utf8).write(to: token)
        let unreachable = try await CLI.vouch(["apps", "list", "--server", "http://127.0.0.1:9", "--admin-token-file", token.path])
        #expect(unreachable.status == 2 && unreachable.stderr.contains("cannot reach"), "\(unreachable)")
        let notHTTP = try await CLI.vouch(["apps", "list", "--server", "ftp://x", "--admin-token-file", token.path])
        #expect(notHTTP.status == 1 && notHTTP.stderr.contains("--server"), "\(notHTTP)")
        let emptyFile = directory.appendingPathComponent("empty")
        try Data().write(to: emptyFile)
        let empty = try await CLI.vouch(["apps", "list", "--admin-token-file", emptyFile.path])
        #expect(empty.status == 1 && empty.stderr.contains("empty"), "\(empty)")
    }
}
