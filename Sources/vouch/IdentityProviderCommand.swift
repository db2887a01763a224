import ArgumentParser
import Foundation
import Hummingbird
import VouchProtocol
import VouchDevelopmentIdentityProvider
import VouchTokens

struct IdentityProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity-provider",
        abstract: "Run the development identity provider (a stand-in for an app's backend).",
        discussion: """
            POST /identity_tokens {"app_id", "user_id", "nonce", "display_name"?} returns a Layer \
            identity token signed with --private-key. With --registration-key and \
            --registration-secret, POST /registration_tokens {"user_id"} returns a Sinch registration \
            token. It vouches for any user id it is asked for: never expose it beyond your machine.
            """
    )

    @OptionGroup var signing: LayerSigningOptions

    @Option(name: .long, help: "Sinch application key, for /registration_tokens.")
    var registrationKey: String?

    @Option(name: .long, help: "Sinch application secret (base64), for /registration_tokens.")
    var registrationSecret: String?

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port = 8090

    func validate() throws {
        guard (registrationKey == nil) == (registrationSecret == nil) else {
            throw ValidationError("--registration-key and --registration-secret go together")
        }
    }

    func run() async throws {
        let layer = try signing.minter()
        do {
            var sinch: SinchTokenMinter?
            if let registrationKey, let registrationSecret {
                sinch = try SinchTokenMinter(applicationKey: registrationKey, applicationSecret: registrationSecret)
            }
            let host = self.host
            let app = DevelopmentIdentityProvider.makeApplication(
                configuration: .init(host: host, port: port, layerMinter: layer, sinchMinter: sinch),
                logger: LogSetup.logger(label: "vouch-idp", level: "info")
            ) { port in
                Console.line("development identity provider listening on http://\(host):\(port) (never expose it)")
            }
            try await app.runService()
        } catch let error as MintingError {
            throw CLIError(error.description)
        }
    }
}
