import ArgumentParser
import Foundation
import VouchProtocol

/// `vouch service-credentials create|list|revoke`: the credentials an app's services send to
/// introspect tokens and to follow the stream of endings (PROTOCOL §8.16). Only `create` prints a
/// credential, once: the server keeps its SHA-256 and never answers the credential again.
struct ServiceCredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "service-credentials",
        abstract: "Credentials for an app's services: introspection and the stream of security events (admin API).",
        discussion: """
            A service sends its credential as `Authorization: Bearer vsc_…` to POST /introspect and \
            GET /events (the app's security events; GET /events/sessions, those that end sessions). Give each service its \
            own, so that one can be revoked alone.
            """,
        subcommands: [Create.self, List.self, Revoke.self]
    )

    /// The collection's path for the app `text` names.
    static func path(app text: String) throws -> String {
        "/admin/apps/\(try AdminPath.app(text))/service-credentials"
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a service credential for an app; the credential is printed this once.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Option(name: .long, help: "What it is for, e.g. \"chat server\" (1…128 bytes).") var name: String

        func run() async throws {
            let (created, data) = try await admin.client().decode(
                ServiceCredentialResponse.self, .POST, try ServiceCredentialsCommand.path(app: app),
                body: CreateServiceCredentialRequest(name: name))
            AdminOutput.print(data, json: admin.json) {
                [
                    "id:         \(created.id)", "name:       \(created.name)", "credential: \(created.credential ?? "-")",
                    "(the server will not show this credential again: store it in the service's secrets now)",
                ]
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List an app's service credentials, oldest first (never the credentials themselves).")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String

        func run() async throws {
            let (list, data) = try await admin.client().decode(
                ServiceCredentialListResponse.self, .GET, try ServiceCredentialsCommand.path(app: app))
            AdminOutput.print(data, json: admin.json) {
                list.serviceCredentials.isEmpty ? ["no service credentials"] : ServiceCredentialsCommand.table(list.serviceCredentials)
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a service credential: every instance refuses it within a second.")
        @OptionGroup var admin: AdminOptions
        @Option(name: .long, help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String
        @Argument(help: "The credential's id, as `vouch service-credentials list` prints it.") var id: String

        func run() async throws {
            guard let credential = LayerID.parseUUID(id.trimmingCharacters(in: .whitespaces)) else {
                throw CLIError("not a service credential id: \(id) (a UUID, as `vouch service-credentials list` prints it)")
            }
            let (revoked, data) = try await admin.client().decode(
                ServiceCredentialResponse.self, .DELETE, "\(try ServiceCredentialsCommand.path(app: app))/\(credential.lowercased)")
            AdminOutput.print(data, json: admin.json) { ["\(revoked.id)  \(revoked.name)  revoked \(revoked.revokedAt ?? "-")"] }
        }
    }

    /// One row per credential under a header: a revoked one shows when, a live one `-`.
    static func table(_ credentials: [ServiceCredentialResponse]) -> [String] {
        AdminTable.lines(
            header: ["ID", "NAME", "CREATED", "REVOKED"],
            rows: credentials.map { [$0.id, $0.name, $0.createdAt, $0.revokedAt ?? "-"] })
    }
}

/// `GET /admin/apps/<app>/service-credentials`'s answer, as the CLI reads it.
struct ServiceCredentialListResponse: Decodable {
    let serviceCredentials: [ServiceCredentialResponse]

    enum CodingKeys: String, CodingKey {
        case serviceCredentials = "service_credentials"
    }
}
