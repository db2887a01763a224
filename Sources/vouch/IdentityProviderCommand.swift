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
            identity token signed with --private-key (a key uploaded to Vouch as --key-id), or with \
            --publish-keys by a key of its own, published on GET /jwks.json (give that \
            URL to the provider as its jwks_uri) and rotated with POST /keys/next, then, once Vouch \
            fetched it, POST /keys/rotate. With --registration-key and --registration-secret, \
            POST /registration_tokens {"user_id"} returns a Sinch registration token. It vouches \
            for any user id it is asked for: never expose it beyond your machine.
            """
    )

    @Option(name: .long, help: "The provider id (layer:///providers/<uuid> or the bare UUID).")
    var providerId: String

    @Option(name: .long, help: "The uploaded key's id (layer:///keys/<uuid> or the UUID); with --private-key.")
    var keyId: String?

    @Option(name: .long, help: "PEM file with the uploaded key's RSA private key (PKCS#1 or PKCS#8); with --key-id.")
    var privateKey: String?

    @Flag(name: .long, help: "Sign with keys of its own, published on /jwks.json, instead of an uploaded key.")
    var publishKeys = false

    @Option(name: .long, help: "Sinch application key, for /registration_tokens.")
    var registrationKey: String?

    @Option(name: .long, help: "Sinch application secret (base64), for /registration_tokens.")
    var registrationSecret: String?

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port = 8090

    func validate() throws {
        if publishKeys {
            guard keyId == nil, privateKey == nil else {
                throw ValidationError("--publish-keys signs with keys of its own: leave out --key-id and --private-key")
            }
        } else {
            guard keyId != nil, privateKey != nil else { throw ValidationError("give --key-id and --private-key (an uploaded key), or --publish-keys") }
        }
        guard (registrationKey == nil) == (registrationSecret == nil) else {
            throw ValidationError("--registration-key and --registration-secret go together")
        }
    }

    func run() async throws {
        let layer: DevelopmentIdentityProvider.LayerSigning
        if let keyId, let privateKey {
            layer = .uploadedKey(try LayerSigningOptions.minter(providerId: providerId, keyId: keyId, privateKey: privateKey))
        } else {
            layer = .publishedKeys(try await PublishedSigningKeys(providerID: LayerSigningOptions.provider(providerId)))
        }
        do {
            var sinch: SinchTokenMinter?
            if let registrationKey, let registrationSecret {
                sinch = try SinchTokenMinter(applicationKey: registrationKey, applicationSecret: registrationSecret)
            }
            let host = self.host
            let app = DevelopmentIdentityProvider.makeApplication(
                configuration: .init(host: host, port: port, layerSigning: layer, sinchMinter: sinch),
                logger: LogSetup.logger(label: "vouch-idp", level: "info")
            ) { port in
                Console.line("development identity provider listening on http://\(host):\(port) (never expose it)")
                if case .publishedKeys = layer {
                    Console.line("its keys: http://\(host):\(port)/jwks.json (the provider's jwks_uri)")
                }
            }
            try await app.runService()
        } catch let error as MintingError {
            throw CLIError(error.description)
        }
    }
}
