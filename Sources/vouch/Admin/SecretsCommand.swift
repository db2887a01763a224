import ArgumentParser
import VouchProtocol

struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "Registration secrets of the Sinch profile (admin API).",
        subcommands: [Create.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a registration secret for an app; the secret is printed this once.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The app id.") var app: String

        func run() async throws {
            let (secret, data) = try await admin.client().decode(
                RegistrationSecretResponse.self, .POST, "/admin/apps/\(try AdminPath.app(app))/registration-secrets")
            AdminOutput.print(data, json: admin.json) {
                [
                    "application key:    \(secret.applicationKey)", "application secret: \(secret.applicationSecret)",
                    "(the server will not show this secret again)",
                ]
            }
        }
    }
}
