import ArgumentParser
import Foundation
import VouchProtocol
import VouchTokens

struct MintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint",
        abstract: "Print a Layer identity token, signed as an app's backend would sign it.",
        discussion: """
            Get the nonce from the server first (`curl -X POST http://127.0.0.1:8080/nonces`); the \
            token is good for one sign-in with that nonce, within --ttl seconds.
            """
    )

    @OptionGroup var signing: LayerSigningOptions

    @Option(name: .long, help: "The user id to vouch for (1…255 bytes).")
    var userId: String

    @Option(name: .long, parsing: .unconditional, help: "The nonce from POST /nonces (it may begin with `-`).")
    var nonce: String

    @Option(name: .long, help: "Seconds until the token expires (60…86400).")
    var ttl: Int64 = 120

    @Option(name: .long, help: "Optional display name claim.")
    var displayName: String?

    @Option(name: .long, help: "Optional first name claim.")
    var firstName: String?

    @Option(name: .long, help: "Optional last name claim.")
    var lastName: String?

    @Option(name: .long, help: "Optional avatar URL claim.")
    var avatarUrl: String?

    @Flag(name: .long, help: "Print {\"identity_token\": …} instead of the bare token.")
    var json = false

    func run() async throws {
        let minter = try signing.minter()
        do {
            let token = try minter.mint(
                userID: userId, nonce: nonce, ttl: ttl,
                identity: IdentityClaims(displayName: displayName, firstName: firstName, lastName: lastName, avatarURL: avatarUrl))
            try TokenOutput.print(token, key: "identity_token", json: json)
        } catch let error as MintingError {
            throw CLIError(error.description)
        }
    }
}

enum TokenOutput {
    static func print(_ token: String, key: String, json: Bool) throws {
        if json {
            try JSONOutput.print([key: token])
        } else {
            Swift.print(token)
        }
    }
}
