import ArgumentParser
import Foundation
import VouchProtocol

/// `vouch webhooks create|list|update|delete|deliveries|replay`: where an app's backend receives security events
/// (PROTOCOL §8.17). Only `create` prints the signing secret, once.
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks",
        abstract: "Where an app's backend receives security events: webhook endpoints (admin API).",
        discussion: """
            Each delivery is a JSON POST signed with the endpoint's secret in `Vouch-Signature: t=…,v1=…` \
            (docs/PROTOCOL.md §8.17 shows the receiver's check). The URL must be https and resolve to public \
            addresses only (loopback with `vouch serve --allow-loopback-outbound`). Event kinds: \
            \(SecurityEventKind.allCases.map(\.rawValue).joined(separator: ", ")).
            """,
        subcommands: [Create.self, List.self, Update.self, Delete.self, Deliveries.self, Replay.self]
    )

    /// The collection's path for the app `text` names.
    static func path(app text: String) throws -> String {
        "/admin/apps/\(try AdminPath.app(text))/webhooks"
    }

    /// The endpoint's path; a clear error for an id that is not a UUID.
    static func path(app text: String, id: String) throws -> String {
        guard let endpoint = LayerID.parseUUID(id.trimmingCharacters(in: .whitespaces)) else {
            throw CLIError("not a webhook endpoint id: \(id) (a UUID, as `vouch webhooks list` prints it)")
        }
        return "\(try path(app: text))/\(endpoint.lowercased)"
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a webhook endpoint for an app; its signing secret is printed this once.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Option(name: .long, help: "An https URL that resolves to public addresses.") var url: String
        @Option(name: .long, parsing: .upToNextOption, help: "The event kinds it receives, e.g. session.ended user.suspended.")
        var events: [String]

        func run() async throws {
            let (created, data) = try await admin.client().decode(
                WebhookEndpointResponse.self, .POST, try WebhooksCommand.path(app: app),
                body: CreateWebhookEndpointRequest(url: url, events: events))
            AdminOutput.print(data, json: admin.json) {
                [
                    "id:     \(created.id)", "url:    \(created.url)", "events: \(created.events.joined(separator: " "))",
                    "secret: \(created.secret ?? "-")",
                    "(the server will not show this secret again: store it where the receiver checks signatures now)",
                ]
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an app's webhook endpoints, oldest first (never their secrets).")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String

        func run() async throws {
            let (list, data) = try await admin.client().decode(WebhookEndpointListResponse.self, .GET, try WebhooksCommand.path(app: app))
            AdminOutput.print(data, json: admin.json) { list.webhooks.isEmpty ? ["no webhook endpoints"] : WebhooksCommand.table(list.webhooks) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a webhook endpoint's URL or events, or pause or resume its deliveries.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Argument(help: "The endpoint's id, as `vouch webhooks list` prints it.") var id: String
        @Option(name: .long, help: "A new https URL.") var url: String?
        @Option(name: .long, parsing: .upToNextOption, help: "The event kinds it receives from now on.") var events: [String] = []
        @Flag(name: .long, help: "Stop its deliveries.") var pause = false
        @Flag(name: .long, help: "Start its deliveries again after a pause.") var resume = false

        func validate() throws {
            if pause && resume { throw ValidationError("give --pause or --resume, not both") }
            if url == nil && events.isEmpty && !pause && !resume {
                throw ValidationError("nothing to change: give --url, --events, --pause or --resume")
            }
        }

        func run() async throws {
            let body = UpdateWebhookEndpointRequest(url: url, events: events.isEmpty ? nil : events, paused: pause ? true : resume ? false : nil)
            let (updated, data) = try await admin.client().decode(
                WebhookEndpointResponse.self, .PATCH, try WebhooksCommand.path(app: app, id: id), body: body)
            AdminOutput.print(data, json: admin.json) { WebhooksCommand.table([updated]) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a webhook endpoint: it receives nothing more.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Argument(help: "The endpoint's id, as `vouch webhooks list` prints it.") var id: String

        func run() async throws {
            let path = try WebhooksCommand.path(app: app, id: id)
            try await admin.client().call(.DELETE, path)
            let endpoint = String(path.split(separator: "/").last ?? "")
            let summary = try JSONSerialization.data(withJSONObject: ["id": endpoint, "status": "deleted"], options: [.sortedKeys])
            AdminOutput.print(summary, json: admin.json) { ["\(endpoint)  deleted"] }
        }
    }

    /// One row per endpoint under a header: a paused one shows why.
    static func table(_ endpoints: [WebhookEndpointResponse]) -> [String] {
        AdminTable.lines(
            header: ["ID", "URL", "EVENTS", "STATE"],
            rows: endpoints.map {
                [$0.id, $0.url, $0.events.joined(separator: ","), $0.paused ? "paused: \($0.pauseReason ?? "-")" : "active"]
            })
    }
}

/// `GET /admin/apps/<app>/webhooks`'s answer, as the CLI reads it.
struct WebhookEndpointListResponse: Decodable {
    let webhooks: [WebhookEndpointResponse]
}
