import Foundation
import Testing
import VouchTestSupport

/// `vouch service-credentials` and the access-token options of `vouch apps`, against a real
/// `vouch serve`.
@Suite(
    "Admin CLI: service credentials and access-token settings",
    .enabled(if: CLI.binaryExists || CLI.inCI, Comment(rawValue: CLI.binaryMissing)))
struct ServiceCredentialsCLITests {
    private func makeApp(_ server: SpawnedServer, _ arguments: [String] = []) async throws -> String {
        let created = try await server.admin(["apps", "create", "--name", "Chat", "--json"] + arguments)
        return try #require(try CLI.jsonObject(created.stdout)["id"] as? String, "\(created)")
    }

    @Test(
        "--help of the new commands exits 0 and names what they take",
        arguments: [
            (["service-credentials"], ["create", "list", "revoke", "Authorization: Bearer vsc_"]),
            (["service-credentials", "create"], ["--app <app>", "--name <name>", "--json"]),
            (["service-credentials", "list"], ["--app <app>"]), (["service-credentials", "revoke"], ["--app <app>", "<id>"]),
            (["apps", "create"], ["--access-token-ttl", "--audience <audience>"]),
            (["apps", "update"], ["--access-token-ttl", "--audience <audience>", "--clear-audiences"]),
        ])
    func help(command: [String], mentions: [String]) async throws {
        let result = try await CLI.vouch(command + ["--help"])
        #expect(result.succeeded, "\(command): \(result)")
        for text in mentions { #expect(result.stdout.contains(text), "\(command) --help names \(text): \(result.stdout)") }
    }

    @Test("create prints the credential once (text and --json); list and revoke never show it; revoked ones say when")
    func createListRevoke() async throws {
        try await SpawnedServer.run { server in
            let app = try await makeApp(server)
            let created = try await server.admin(["service-credentials", "create", "--app", app, "--name", "chat server"])
            #expect(created.succeeded, "\(created)")
            let line = try #require(created.stdout.split(separator: "\n").first { $0.hasPrefix("credential: ") }, "\(created)")
            let credential = String(line.dropFirst("credential: ".count))
            #expect(credential.hasPrefix("vsc_") && credential.count == 47, "\(credential)")
            #expect(created.stdout.contains("will not show this credential again"), "\(created)")
            #expect(created.stdout.contains("name:       chat server"), "\(created)")
            let id = try #require(
                created.stdout.split(separator: "\n").first { $0.hasPrefix("id: ") }?.split(separator: " ").last.map(String.init))

            let json = try await server.admin(["service-credentials", "create", "--app", app, "--name", "media relay", "--json"])
            let answer = try CLI.jsonObject(json.stdout)
            #expect((answer["credential"] as? String)?.hasPrefix("vsc_") == true, "\(json)")
            #expect(answer["name"] as? String == "media relay")
            let second = try #require(answer["credential"] as? String)

            let list = try await server.admin(["service-credentials", "list", "--app", app])
            #expect(list.succeeded, "\(list)")
            let lines = list.stdout.split(separator: "\n")
            #expect(lines.count == 3, "a header and two rows: \(list)")
            #expect(lines.first?.hasPrefix("ID") == true && lines.first?.contains("REVOKED") == true, "\(list)")
            // Oldest first, and two made within one second are in id order (the store's rule): both are listed.
            #expect(lines.dropFirst().contains { $0.contains("chat server") } && lines.dropFirst().contains { $0.contains("media relay") }, "\(list)")
            #expect(!list.stdout.contains("vsc_"), "a listing never holds a credential: \(list)")
            let listJSON = try await server.admin(["service-credentials", "list", "--app", app, "--json"])
            #expect(!listJSON.stdout.contains(credential) && !listJSON.stdout.contains(second), "\(listJSON)")
            #expect((try CLI.jsonObject(listJSON.stdout)["service_credentials"] as? [[String: Any]])?.count == 2)

            let revoked = try await server.admin(["service-credentials", "revoke", "--app", app, id])
            #expect(revoked.succeeded && revoked.stdout.contains("\(id)  chat server  revoked 20"), "\(revoked)")
            #expect(!revoked.stdout.contains("vsc_"))
            let after = try await server.admin(["service-credentials", "list", "--app", app])
            let row = try #require(after.stdout.split(separator: "\n").first { $0.contains(id) }, "\(after)")
            #expect(!row.hasSuffix("-"), "the revoked row shows when: \(after)")
            let live = try #require(after.stdout.split(separator: "\n").first { $0.contains("media relay") }, "\(after)")
            #expect(live.hasSuffix("-"), "the live row shows -: \(after)")

            let other = try await makeApp(server)
            #expect(try await server.admin(["service-credentials", "list", "--app", other]).stdout == "no service credentials\n")
            let elsewhere = try await server.admin(["service-credentials", "revoke", "--app", other, id])
            #expect(elsewhere.status == 1 && elsewhere.stderr.contains("404"), "another app's credential: \(elsewhere)")
        }
    }

    @Test("a missing --app or --name, an unknown app, a bad id or name: one clear line, no stack trace")
    func errors() async throws {
        try await SpawnedServer.run { server in
            let noApp = try await server.admin(["service-credentials", "create", "--name", "x"])
            #expect(noApp.status == 64 && noApp.stderr.contains("Missing expected argument '--app <app>'"), "\(noApp)")
            let noName = try await server.admin(["service-credentials", "create", "--app", UUID().uuidString])
            #expect(noName.status == 64 && noName.stderr.contains("--name"), "\(noName)")
            let noListApp = try await server.admin(["service-credentials", "list"])
            #expect(noListApp.status == 64 && noListApp.stderr.contains("--app"), "\(noListApp)")

            let unknown = try await server.admin(["service-credentials", "create", "--app", UUID().uuidString, "--name", "x"])
            #expect(unknown.status == 1, "\(unknown)")
            #expect(unknown.stderr.hasSuffix("the server answered 404: not_found: App not found.\n"), "\(unknown)")
            #expect(unknown.stderr.split(separator: "\n").count == 1, "one line: \(unknown)")
            let notAnID = try await server.admin(["service-credentials", "list", "--app", "chat"])
            #expect(notAnID.status == 1 && notAnID.stderr.contains("not an app id: chat"), "\(notAnID)")

            let app = try await makeApp(server)
            let badID = try await server.admin(["service-credentials", "revoke", "--app", app, "vsc_oops"])
            #expect(badID.status == 1 && badID.stderr.contains("not a service credential id: vsc_oops"), "\(badID)")
            let unknownID = try await server.admin(["service-credentials", "revoke", "--app", app, UUID().uuidString])
            #expect(unknownID.status == 1 && unknownID.stderr.contains("Service credential not found"), "\(unknownID)")
            let emptyName = try await server.admin(["service-credentials", "create", "--app", app, "--name", ""])
            #expect(emptyName.status == 1 && emptyName.stderr.contains("422") && emptyName.stderr.contains("name"), "\(emptyName)")

            for result in [noApp, noName, unknown, notAnID, badID, unknownID, emptyName] {
                #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump") && !result.signaled, "\(result)")
                #expect(result.stdout.isEmpty, "\(result)")
            }
        }
    }

    @Test("apps create/update: --access-token-ttl and --audience round-trip; --clear-audiences empties; the server's 422s are shown")
    func accessTokenSettings() async throws {
        try await SpawnedServer.run { server in
            let app = try await makeApp(server, ["--access-token-ttl", "120", "--audience", "chat.example.com"])
            let shown = try await server.admin(["apps", "show", app])
            #expect(shown.stdout.contains("access-token TTL 120 s"), "\(shown)")
            #expect(shown.stdout.contains("access-token audiences: chat.example.com\n"), "\(shown)")

            let updated = try await server.admin([
                "apps", "update", app, "--access-token-ttl", "60", "--audience", "https://media.example.com", "--audience", "push",
                "--json",
            ])
            let answer = try CLI.jsonObject(updated.stdout)
            #expect(answer["access_token_ttl_seconds"] as? Int == 60, "\(updated)")
            #expect(answer["audiences"] as? [String] == ["https://media.example.com", "push"], "replaced, in order: \(updated)")
            let text = try await server.admin(["apps", "show", app])
            #expect(text.stdout.contains("access-token audiences: https://media.example.com, push"), "\(text)")

            let renamed = try await server.admin(["apps", "update", app, "--name", "Talk", "--json"])
            #expect(try CLI.jsonObject(renamed.stdout)["audiences"] as? [String] == ["https://media.example.com", "push"], "kept")
            let cleared = try await server.admin(["apps", "update", app, "--clear-audiences", "--json"])
            #expect(try CLI.jsonObject(cleared.stdout)["audiences"] as? [String] == [], "\(cleared)")
            #expect(try await server.admin(["apps", "show", app]).stdout.contains("access-token audiences: none besides the app id"))

            let spaced = try await server.admin(["apps", "update", app, "--audience", "chat server"])
            #expect(spaced.status == 1, "\(spaced)")
            #expect(spaced.stderr.contains("422: invalid_property: Each audience is 1…200 characters of printable ASCII without spaces"), "\(spaced)")
            let twice = try await server.admin(["apps", "update", app, "--audience", "chat", "--audience", "chat"])
            #expect(twice.status == 1 && twice.stderr.contains("names an audience twice"), "\(twice)")
            let tooLong = try await server.admin(["apps", "update", app, "--access-token-ttl", "301"])
            #expect(tooLong.status == 1 && tooLong.stderr.contains("access_token_ttl_seconds` must be between 1 and 300"), "\(tooLong)")
            let badCreate = try await server.admin(["apps", "create", "--name", "X", "--access-token-ttl", "0"])
            #expect(badCreate.status == 1 && badCreate.stderr.contains("access_token_ttl_seconds"), "\(badCreate)")
            #expect(try CLI.jsonObject(try await server.admin(["apps", "show", app, "--json"]).stdout)["audiences"] as? [String] == [])

            let both = try await server.admin(["apps", "update", app, "--audience", "chat", "--clear-audiences"])
            #expect(both.status == 64 && both.stderr.contains("either --audience or --clear-audiences"), "\(both)")
            let nothing = try await server.admin(["apps", "update", app])
            #expect(nothing.status == 64 && nothing.stderr.contains("--access-token-ttl"), "\(nothing)")
        }
    }
}
