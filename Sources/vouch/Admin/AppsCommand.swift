import ArgumentParser
import VouchProtocol

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Create, list, show and update apps (admin API).",
        subcommands: [Create.self, List.self, Show.self, Update.self]
    )

    /// An app in two lines: its id, name, lifetimes and creation; then the audiences its access
    /// tokens may be minted for (the app's id always, and those registered).
    static func lines(_ app: AppResponse) -> [String] {
        [
            "\(app.id)  \(app.name)  session TTL \(app.sessionTTLSeconds) s  challenge margin \(app.challengeMarginSeconds) s  "
                + "access-token TTL \(app.accessTokenTTLSeconds) s  created \(app.createdAt)",
            "    access-token audiences: " + (app.audiences.isEmpty ? "none besides the app id" : app.audiences.joined(separator: ", ")),
        ]
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app; prints its id.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app's name (1…128 bytes).") var name: String
        @Option(name: .long, help: "Session lifetime in seconds (30…31536000; default 30 days).") var sessionTtl: Int64?
        @Option(name: .long, help: "Seconds a client has to answer a live-channel challenge (5…600; default 30).")
        var challengeMargin: Int64?
        @Option(name: .long, help: "Access-token lifetime in seconds (1…300; default 300).") var accessTokenTtl: Int64?
        @Option(
            name: .customLong("audience"),
            help: "An audience access tokens may be minted for besides the app's id (a service's URL or name); repeat for several.")
        var audiences: [String] = []

        func run() async throws {
            let body = CreateAppRequest(
                name: name, sessionTTLSeconds: sessionTtl, challengeMarginSeconds: challengeMargin,
                accessTokenTTLSeconds: accessTokenTtl, audiences: audiences.isEmpty ? nil : audiences)
            let (app, data) = try await admin.client().decode(AppResponse.self, .POST, "/admin/apps", body: body)
            AdminOutput.print(data, json: admin.json) { AppsCommand.lines(app) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every app, oldest first.")
        @OptionGroup var admin: AdminOptions

        func run() async throws {
            let (apps, data) = try await admin.client().decode([AppResponse].self, .GET, "/admin/apps")
            AdminOutput.print(data, json: admin.json) { apps.isEmpty ? ["no apps"] : apps.flatMap(AppsCommand.lines) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one app.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String

        func run() async throws {
            let (answer, data) = try await admin.client().decode(AppResponse.self, .GET, "/admin/apps/\(try AdminPath.app(app))")
            AdminOutput.print(data, json: admin.json) { AppsCommand.lines(answer) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename an app, or change its lifetimes, challenge margin or access-token audiences.",
            discussion: "Only the options given change. --audience replaces the whole list; --clear-audiences empties it.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Option(name: .long, help: "The new name.") var name: String?
        @Option(name: .long, help: "The new session lifetime in seconds.") var sessionTtl: Int64?
        @Option(name: .long, help: "The new challenge margin in seconds (5…600).") var challengeMargin: Int64?
        @Option(name: .long, help: "The new access-token lifetime in seconds (1…300).") var accessTokenTtl: Int64?
        @Option(
            name: .customLong("audience"),
            help: "An audience besides the app's id; repeat for several. The given ones replace the whole list.")
        var audiences: [String] = []
        @Flag(name: .long, help: "Remove every registered audience (tokens are then for the app's id only).")
        var clearAudiences = false

        func validate() throws {
            guard !(clearAudiences && !audiences.isEmpty) else {
                throw ValidationError("pass either --audience or --clear-audiences, not both")
            }
            guard
                name != nil || sessionTtl != nil || challengeMargin != nil || accessTokenTtl != nil || !audiences.isEmpty
                    || clearAudiences
            else {
                throw ValidationError(
                    "pass at least one of --name, --session-ttl, --challenge-margin, --access-token-ttl, --audience, --clear-audiences")
            }
        }

        func run() async throws {
            let body = UpdateAppRequest(
                name: name, sessionTTLSeconds: sessionTtl, challengeMarginSeconds: challengeMargin,
                accessTokenTTLSeconds: accessTokenTtl, audiences: clearAudiences ? [] : audiences.isEmpty ? nil : audiences)
            let (answer, data) = try await admin.client().decode(
                AppResponse.self, .PATCH, "/admin/apps/\(try AdminPath.app(app))", body: body)
            AdminOutput.print(data, json: admin.json) { AppsCommand.lines(answer) }
        }
    }
}
