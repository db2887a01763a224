import Foundation
import Testing
import VouchTestSupport

/// `vouch users export` and `vouch users delete`, against a real `vouch serve`.
@Suite("Admin CLI: a user's export and erasure", .enabled(if: CLI.binaryExists || CLI.inCI, Comment(rawValue: CLI.binaryMissing)))
struct UsersDataCLITests {
    @Test(
        "--help says what each command does and takes",
        arguments: [
            (["users"], ["export", "delete"]),
            (["users", "export"], ["<app>", "<user>", "--output <output>", "0600"]),
            (["users", "delete"], ["<app>", "<user>", "--yes", "pseudonym", "cannot be undone"]),
        ])
    func help(command: [String], mentions: [String]) async throws {
        let result = try await CLI.vouch(command + ["--help"])
        #expect(result.succeeded, "\(command): \(result)")
        for text in mentions { #expect(result.stdout.contains(text), "\(command) --help names \(text): \(result.stdout)") }
    }

    @Test("export to stdout and to a 0600 file; delete needs --yes, prints the pseudonym, then the user is gone")
    func exportAndDelete() async throws {
        try await SpawnedServer.run { server in
            let made = try await server.admin(["apps", "create", "--name", "Chat", "--json"])
            let app = try #require(try CLI.jsonObject(made.stdout)["id"] as? String, "\(made)")
            #expect(try await server.admin(["users", "suspend", app, "alice smith/1"]).succeeded)

            let exported = try await server.admin(["users", "export", app, "alice smith/1"])
            #expect(exported.succeeded, "\(exported)")
            let export = try CLI.jsonObject(exported.stdout)
            #expect((export["user"] as? [String: Any])?["user_id"] as? String == "alice smith/1")
            #expect(export["suspended"] as? Bool == true)
            #expect((export["audit"] as? [[String: Any]])?.count == 1, "the suspension")

            let directory = try CLI.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("alice.json")
            let saved = try await server.admin(["users", "export", app, "alice smith/1", "--output", file.path])
            #expect(saved.succeeded && saved.stdout.contains("wrote \(file.path)"), "\(saved)")
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) is [String: Any])

            let unsure = try await server.admin(["users", "delete", app, "alice smith/1"])
            #expect(unsure.status == 1 && unsure.stderr.contains("pass --yes"), "\(unsure)")
            #expect(try await server.admin(["users", "show", app, "alice smith/1"]).succeeded, "nothing was erased")

            let deleted = try await server.admin(["users", "delete", app, "alice smith/1", "--yes"])
            #expect(deleted.succeeded, "\(deleted)")
            #expect(deleted.stdout.contains("alice smith/1  deleted  pseudonym: erased-"), "\(deleted)")
            #expect(deleted.stdout.contains("audit entries pseudonymised: 3"), "the suspension and both exports: \(deleted)")
            let gone = try await server.admin(["users", "show", app, "alice smith/1"])
            #expect(gone.status == 1 && gone.stderr.contains("404"), "\(gone)")
            let again = try await server.admin(["users", "delete", app, "alice smith/1", "--yes", "--json"])
            #expect(again.status == 1 && again.stderr.contains("404"), "\(again)")
        }
    }
}
