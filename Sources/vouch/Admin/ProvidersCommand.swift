import ArgumentParser
import Foundation
import VouchProtocol

struct ProvidersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "providers",
        abstract: "Create identity providers, bind them to apps, and fetch their keys from a JWKS URL (admin API).",
        subcommands: [Create.self, Show.self, Update.self, KeySource.self, Bind.self, Unbind.self]
    )

    static func lines(_ provider: ProviderResponse) -> [String] {
        var lines = ["\(provider.id)  \(provider.name)"] + provider.appIDs.map { "  may vouch for \($0)" }
        if let source = provider.keySource {
            if let jwksURI = source.jwksURI { lines.append("  keys from \(jwksURI)") }
            if let issuer = source.issuer {
                lines.append(source.jwksURI == nil ? "  keys from the discovery document of \(issuer)" : "  issuer \(issuer)")
            }
            let federated = source.federated ? ", federated ID tokens for client \(source.clientID ?? "?")" : ""
            lines.append("  \(source.algorithm)\(federated)")
        }
        return lines
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a provider; prints its id.",
            discussion: """
                With --jwks-uri or --issuer the provider's keys are fetched from its key source \
                (PROTOCOL §8.18); with --federated its own OpenID ID tokens sign users in.
                """)
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The provider's name (1…128 bytes).") var name: String
        @OptionGroup var source: KeySourceOptions

        func run() async throws {
            let body = CreateProviderRequest(
                name: name, jwksURI: source.jwksURI, issuer: source.issuer, clientID: source.clientID,
                federated: source.federated ? true : nil, algorithm: source.algorithm)
            let (provider, data) = try await admin.client().decode(ProviderResponse.self, .POST, "/admin/providers", body: body)
            AdminOutput.print(data, json: admin.json) { ProvidersCommand.lines(provider) }
        }
    }

    /// A key source's members on the command line.
    struct KeySourceOptions: ParsableArguments {
        @Option(name: .long, help: "The provider's JWKS URL (https; loopback only with vouch serve --allow-loopback-outbound).")
        var jwksURI: String?
        @Option(name: .long, help: "The provider's issuer: tokens' iss must equal it exactly; without --jwks-uri its discovery document names the keys.")
        var issuer: String?
        @Option(name: .long, help: "The client id a federated ID token's aud must name.") var clientID: String?
        @Flag(name: .long, help: "Let the provider's own ID tokens (no Vouch nonce) sign users in; needs --issuer and --client-id.")
        var federated = false
        @Option(name: .long, help: "The one algorithm fetched keys verify: RS256 (default) or ES256.") var algorithm: String?
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a provider or change its key source; options left out stay as they are.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The provider id (layer:///providers/<uuid> or the UUID).") var provider: String
        @Option(name: .long, help: "A new name (1…128 bytes).") var name: String?
        @OptionGroup var source: KeySourceOptions
        @Flag(name: .long, help: "Stop a federated provider's ID tokens signing users in.") var notFederated = false
        @Flag(name: .long, help: "Remove the key source (and what was fetched from it); uploaded keys stay.") var noKeySource = false

        func validate() throws {
            if source.federated && notFederated { throw ValidationError("--federated and --not-federated contradict each other") }
            if noKeySource && (source.jwksURI != nil || source.issuer != nil || source.clientID != nil || source.federated) {
                throw ValidationError("--no-key-source removes the key source: give no other key-source option with it")
            }
        }

        func run() async throws {
            var body = UpdateProviderRequest(name: name)
            if noKeySource {
                body.jwksURI = .cleared
                body.issuer = .cleared
                body.clientID = .cleared
                body.federated = false
                body.algorithm = "RS256"
            } else {
                body.jwksURI = source.jwksURI.map(FieldChange.set) ?? .unchanged
                body.issuer = source.issuer.map(FieldChange.set) ?? .unchanged
                body.clientID = source.clientID.map(FieldChange.set) ?? .unchanged
                body.federated = source.federated ? true : (notFederated ? false : nil)
                body.algorithm = source.algorithm
            }
            let (answer, data) = try await admin.client().decode(
                ProviderResponse.self, .PATCH, "/admin/providers/\(try AdminPath.provider(provider))", body: body)
            AdminOutput.print(data, json: admin.json) { ProvidersCommand.lines(answer) }
        }
    }

    struct KeySource: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key-source",
            abstract: "Show how a provider's key source fares and every key seen in it, with its sign-ins in the last 24 hours.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The provider id.") var provider: String
        @Flag(name: .long, help: "Fetch the keys now first.") var refresh = false

        func run() async throws {
            let path = "/admin/providers/\(try AdminPath.provider(provider))/key-source"
            let (status, data) =
                refresh
                ? try await admin.client().decode(KeySourceStatusResponse.self, .POST, path + "/refresh")
                : try await admin.client().decode(KeySourceStatusResponse.self, .GET, path)
            AdminOutput.print(data, json: admin.json) { KeySource.lines(status) }
        }

        static func lines(_ status: KeySourceStatusResponse) -> [String] {
            var lines = ["\(status.providerID)  \(status.status.rawValue)"]
            if let url = status.jwksURL { lines.append("  JWKS \(url)") }
            if let fetched = status.fetchedAt { lines.append("  fetched \(fetched), fresh until \(status.freshUntil ?? "-")") }
            if let since = status.failingSince {
                lines.append("  FAILING since \(since): \(status.lastError ?? "unknown"); last good keys trusted until \(status.trustedUntil ?? "-")")
            } else if let error = status.lastError {
                lines.append("  last error: \(error)")
            }
            let rows = status.keys.map { key in
                [key.kid, key.keyType, key.present ? "published" : "withdrawn", key.firstSeenAt, key.lastSeenAt, String(key.tokensVerified24h)]
            }
            if !rows.isEmpty {
                lines += AdminTable.lines(header: ["KID", "TYPE", "STATE", "FIRST SEEN", "LAST SEEN", "SIGN-INS 24H"], rows: rows)
            }
            return lines
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
