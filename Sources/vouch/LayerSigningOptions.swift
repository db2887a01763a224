import ArgumentParser
import Foundation
import VouchProtocol
import VouchTokens

/// The three options that name a provider's signing key, shared by every command that mints
/// Layer identity tokens, with the one place that turns them into a minter.
struct LayerSigningOptions: ParsableArguments {
    @Option(name: .long, help: "The provider id (layer:///providers/<uuid> or the bare UUID).")
    var providerId: String

    @Option(name: .long, help: "The id the server knows the public key by (layer:///keys/<uuid> or the UUID).")
    var keyId: String

    @Option(name: .long, help: "PEM file with the provider's RSA private key (PKCS#1 or PKCS#8).")
    var privateKey: String

    func minter() throws -> LayerTokenMinter {
        try Self.minter(providerId: providerId, keyId: keyId, privateKey: privateKey)
    }

    static func provider(_ providerId: String) throws -> UUID {
        guard let provider = LayerID.parseProvider(providerId) else {
            throw CLIError("--provider-id must be layer:///providers/<uuid> or a UUID")
        }
        return provider
    }

    static func minter(providerId: String, keyId: String, privateKey: String) throws -> LayerTokenMinter {
        let provider = try provider(providerId)
        guard let key = LayerID.parseKey(keyId) else { throw CLIError("--key-id must be layer:///keys/<uuid> or a UUID") }
        let pem = try CLIError.readFile(privateKey)
        do {
            return try LayerTokenMinter(privateKeyPEM: pem, providerID: provider, keyID: key)
        } catch {
            throw CLIError(error.description)
        }
    }
}
