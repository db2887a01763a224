import ArgumentParser
import Foundation
import VouchProtocol

struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Look up, suspend and sign out an app's users (admin API).",
        subcommands: [Show.self, Suspend.self, Unsuspend.self, RevokeSessions.self]
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

    static func setSuspended(_ suspended: Bool, _ target: Target) async throws {
        let (status, data) = try await target.admin.client().decode(
            UserStatusResponse.self, .PATCH, try target.path, body: UpdateUserRequest(suspended: suspended))
        target.printStatus(status, data)
    }
}
