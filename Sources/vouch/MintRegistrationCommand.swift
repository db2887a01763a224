import ArgumentParser
import Foundation
import VouchTokens

struct MintRegistrationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint-registration",
        abstract: "Print a Sinch registration token made from an app's registration secret.",
        discussion: """
            Create the secret with `POST /admin/apps/<uuid>/registration-secrets`. The token's key is \
            derived for today's UTC date (kid hkdfv1-YYYYMMDD), and its nonce is made here.
            """
    )

    @Option(name: .long, help: "The application key (a UUID).")
    var applicationKey: String

    @Option(name: .long, help: "The application secret (base64), as issued.")
    var applicationSecret: String

    @Option(name: .long, help: "The user id: 1…255 characters of A–Z a–z 0–9 _ = -.")
    var userId: String

    @Option(name: .long, help: "Seconds until the token expires (60…86400).")
    var ttl: Int64 = 600

    @Option(name: .long, help: "Use this nonce instead of a random one.")
    var nonce: String?

    @Option(name: .long, help: "Unix seconds to use as iat instead of now (for reproducible tokens).")
    var issuedAt: Int64?

    @Flag(name: .long, help: "Print {\"registration_token\": …} instead of the bare token.")
    var json = false

    func run() async throws {
        do {
            let minter = try SinchTokenMinter(applicationKey: applicationKey, applicationSecret: applicationSecret)
            let token = try minter.mint(
                userID: userId, nonce: nonce ?? UUID().uuidString.lowercased(),
                issuedAt: issuedAt ?? Int64(Date().timeIntervalSince1970), ttl: ttl)
            try TokenOutput.print(token, key: "registration_token", json: json)
        } catch let error as MintingError {
            throw CLIError(error.description)
        }
    }
}
