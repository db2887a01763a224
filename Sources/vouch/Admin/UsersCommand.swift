import ArgumentParser
import Foundation
import VouchProtocol

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Look up, suspend, sign out, export and erase an app's users (admin API).",
        subcommands: [Show.self, Suspend.self, Unsuspend.self, RevokeSessions.self, Export.self, Delete.self]
    )

    struct Target: ParsableArguments {
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The app id.") var app: String
        @Argument(help: "The user id, as the identity tokens name it.") var user: String

        var path: String {
            get throws { "/admin/apps/\(try AdminPath.app(app))/users/\(try AdminPath.user(user))" }
        }

        func printStatus(_ status: UserStatusResponse, _ data: Data) {
            AdminOutput.print(data, json: admin.json) {
                ["\(status.user.userID)  \(status.suspended ? "suspended" : "active")  active sessions: \(status.activeSessions)"]
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a user's standing and live session count.")
        @OptionGroup var target: Target

        func run() async throws {
            let (status, data) = try await target.admin.client().decode(UserStatusResponse.self, .GET, try target.path)
            target.printStatus(status, data)
        }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suspend a user: their sessions end now and they cannot sign in until unsuspended.")
        @OptionGroup var target: Target

        func run() async throws { try await UsersCommand.setSuspended(true, target) }
    }

    struct Unsuspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a suspended user sign in again.")
        @OptionGroup var target: Target

        func run() async throws { try await UsersCommand.setSuspended(false, target) }
    }

    struct RevokeSessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke-sessions", abstract: "End every live session of a user.")
        @OptionGroup var target: Target

        func run() async throws {
            let client = try target.admin.client()
            try await client.call(.DELETE, try target.path + "/sessions")
            let (status, data) = try await client.decode(UserStatusResponse.self, .GET, try target.path)
            target.printStatus(status, data)
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Everything Vouch holds about a user, as JSON: profile, sessions, security events, audit entries.",
            discussion: "Written to standard output, or with --output to a new file of mode 0600 (it is personal data).")
        @OptionGroup var target: Target
        @Option(name: .shortAndLong, help: "Write the export to this file instead of standard output.") var output: String?

        func run() async throws {
            let data = try await target.admin.client().call(.GET, try target.path + "/export")
            guard let output else {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
                return
            }
            try SecretFile.write(String(decoding: data, as: UTF8.self) + "\n", to: URL(fileURLWithPath: output))
            print("wrote \(output)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a user: end every session, forget the profile and sessions, pseudonymise the audit log.",
            discussion: """
                Each device is signed out at once, services following the event stream refuse the user's access tokens,
                and webhooks receive user.deleted. The audit log keeps its entries about the user under a pseudonym.
                A later sign-in with a valid token makes a new user. This cannot be undone: pass --yes.
                """)
        @OptionGroup var target: Target
        @Flag(name: .long, help: "Confirm the erasure.") var yes = false

        func run() async throws {
            guard yes else { throw CLIError("erasing a user cannot be undone; run `vouch users export` first if needed, then pass --yes") }
            let (erased, data) = try await target.admin.client().decode(UserErasureResponse.self, .DELETE, try target.path)
            AdminOutput.print(data, json: target.admin.json) {
                [
                    "\(erased.userID)  deleted  pseudonym: \(erased.pseudonym)",
                    "live sessions ended: \(erased.sessionsEnded)  sessions forgotten: \(erased.sessionsForgotten)"
                        + "  audit entries pseudonymised: \(erased.auditEntriesPseudonymised)",
                ]
            }
        }
    }

    static func setSuspended(_ suspended: Bool, _ target: Target) async throws {
        let (status, data) = try await target.admin.client().decode(
            UserStatusResponse.self, .PATCH, try target.path, body: UpdateUserRequest(suspended: suspended))
        target.printStatus(status, data)
    }
}
