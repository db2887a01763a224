import ArgumentParser
import Foundation
import VouchProtocol

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "Create identity providers and bind them to apps (admin API).",
        subcommands: [Create.self, Show.self, Bind.self, Unbind.self]
    )

    static func lines(_ provider: ProviderResponse) -> [String] {
        ["\(provider.id)  \(provider.name)"] + provider.appIDs.map { "  may vouch for \($0)" }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a provider; prints its id.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The provider's name (1…128 bytes).") var name: String

        func run() async throws {
            let (provider, data) = try await admin.client().decode(
                ProviderResponse.self, .POST, "/admin/providers", body: CreateProviderRequest(name: name))
            AdminOutput.print(data, json: admin.json) { ProvidersCommand.lines(provider) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a provider and the apps it may vouch for.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The provider id (layer:///providers/<uuid> or the UUID).") var provider: String

        func run() async throws {
            let (answer, data) = try await admin.client().decode(
                ProviderResponse.self, .GET, "/admin/providers/\(try AdminPath.provider(provider))")
            AdminOutput.print(data, json: admin.json) { ProvidersCommand.lines(answer) }
        }
    }

    struct Bind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a provider vouch for an app's users.")
        @OptionGroup var binding: BindingArguments

        func run() async throws { try await binding.set(bound: true) }
    }

    struct Unbind: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a provider vouching for an app's users.")
        @OptionGroup var binding: BindingArguments

        func run() async throws { try await binding.set(bound: false) }
    }

    struct BindingArguments: ParsableArguments {
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The provider id.") var provider: String
        @Argument(help: "The app id.") var app: String

        func set(bound: Bool) async throws {
            let providerID = try AdminPath.provider(provider), appID = try AdminPath.app(app)
            try await admin.client().call(bound ? .PUT : .DELETE, "/admin/providers/\(providerID)/apps/\(appID)")
            let ids = (provider: "layer:///providers/\(providerID)", app: "layer:///apps/\(appID)")
            // The API answers 204 with no body; --json prints what is now true instead.
            let summary = try JSONSerialization.data(
                withJSONObject: ["provider_id": ids.provider, "app_id": ids.app, "bound": bound], options: [.sortedKeys, .withoutEscapingSlashes])
            AdminOutput.print(summary, json: admin.json) { ["\(bound ? "bound" : "unbound"): \(ids.provider) and \(ids.app)"] }
        }
    }
}
