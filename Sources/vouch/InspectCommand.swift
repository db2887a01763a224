import ArgumentParser
import Foundation
import VouchProtocol
import VouchTokens

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Decode a token's header and claims, without verifying or trusting them.",
        discussion: "Use `vouch token validate` to ask the server whether it would accept the token."
    )

    @Argument(help: "The token (or - to read it from standard input).")
    var token: String

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    struct Output: Encodable {
        var profile: String
        var header: [String: JSONValue]
        var claims: [String: JSONValue]
        var signatureBytes: Int

        enum CodingKeys: String, CodingKey {
            case profile, header, claims
            case signatureBytes = "signature_bytes"
        }
    }

    func run() async throws {
        let text = try TokenArgument.read(token)
        let inspection: TokenInspector.Inspection
        do {
            inspection = try TokenInspector.inspect(text)
        } catch {
            throw CLIError("\(error.reason.rawValue): \(error.message)" + (error.hint.map { " (\($0))" } ?? ""))
        }
        let output = Output(
            profile: inspection.profile.rawValue, header: inspection.header, claims: inspection.claims,
            signatureBytes: inspection.signatureByteCount)
        if json {
            try JSONOutput.print(output)
            return
        }
        print("profile: \(output.profile) (not verified)")
        print("header:")
        try printIndented(output.header)
        print("claims:")
        try printIndented(output.claims)
        for name in ["iat", "exp"] {
            if let seconds = inspection.claims[name]?.integerValue {
                print("\(name): \(Timestamp.rfc3339(seconds))")
            }
        }
        print("signature: \(output.signatureBytes) bytes")
    }

    private func printIndented(_ object: [String: JSONValue]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        let text = String(decoding: try encoder.encode(object), as: UTF8.self)
        print(text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
    }
}

enum TokenArgument {
    /// The token itself, or standard input for `-` (so tokens need not appear in shell history).
    static func read(_ argument: String) throws -> String {
        guard argument == "-" else { return argument }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
