import ArgumentParser
import VouchProtocol

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Create, list, show and update apps (admin API).",
        subcommands: [Create.self, List.self, Show.self, Update.self]
    )

    static func lines(_ app: AppResponse) -> [String] {
        [
            "\(app.id)  \(app.name)  session TTL \(app.sessionTTLSeconds) s  challenge margin \(app.challengeMarginSeconds) s  "
                + "created \(app.createdAt)"
        ]
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an app; prints its id.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app's name (1…128 bytes).") var name: String
        @Option(name: .long, help: "Session lifetime in seconds (30…31536000; default 30 days).") var sessionTtl: Int64?
        @Option(name: .long, help: "Seconds a client has to answer a live-channel challenge (5…600; default 30).")
        var challengeMargin: Int64?

        func run() async throws {
            let (app, data) = try await admin.client().decode(
                AppResponse.self, .POST, "/admin/apps",
                body: CreateAppRequest(name: name, sessionTTLSeconds: sessionTtl, challengeMarginSeconds: challengeMargin))
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
            abstract: "Rename an app, or change its session lifetime or its live-channel challenge margin.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Option(name: .long, help: "The new name.") var name: String?
        @Option(name: .long, help: "The new session lifetime in seconds.") var sessionTtl: Int64?
        @Option(name: .long, help: "The new challenge margin in seconds (5…600).") var challengeMargin: Int64?

        func validate() throws {
            guard name != nil || sessionTtl != nil || challengeMargin != nil else {
                throw ValidationError("pass at least one of --name, --session-ttl, --challenge-margin")
            }
        }

        func run() async throws {
            let (answer, data) = try await admin.client().decode(
                AppResponse.self, .PATCH, "/admin/apps/\(try AdminPath.app(app))",
                body: UpdateAppRequest(name: name, sessionTTLSeconds: sessionTtl, challengeMarginSeconds: challengeMargin))
            AdminOutput.print(data, json: admin.json) { AppsCommand.lines(answer) }
        }
    }
}
