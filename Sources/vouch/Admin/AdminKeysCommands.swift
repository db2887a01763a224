import ArgumentParser
import Foundation
import VouchProtocol

/// `vouch keys upload|list|disable|enable|delete`: a provider's public keys on the server.
/// (`vouch keys generate` makes a key pair locally and needs no server.)
enum AdminKeysCommands {
    static func lines(_ key: KeyResponse) -> [String] {
        ["\(key.id)  \(key.status.rawValue)  \(key.fingerprint)  last verified: \(key.lastVerifiedAt ?? "never")"]
    }

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a provider's public key (PEM); prints the key id to sign tokens with.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The provider id.") var provider: String
        @Option(name: .long, help: "PEM file with the RSA public key (e.g. public.pem from `vouch keys generate`).")
        var publicKey: String

        func run() async throws {
            let pem = try CLIError.readFile(publicKey)
            let (key, data) = try await admin.client().decode(
                KeyResponse.self, .POST, "/admin/providers/\(try AdminPath.provider(provider))/keys",
                body: CreateKeyRequest(publicKey: pem))
            AdminOutput.print(data, json: admin.json) { AdminKeysCommands.lines(key) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a provider's keys, deleted ones included.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The provider id.") var provider: String

        func run() async throws {
            let (keys, data) = try await admin.client().decode(
                [KeyResponse].self, .GET, "/admin/providers/\(try AdminPath.provider(provider))/keys")
            AdminOutput.print(data, json: admin.json) { keys.isEmpty ? ["no keys"] : keys.flatMap(AdminKeysCommands.lines) }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop a key verifying tokens (it can be enabled again).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The key id.") var key: String

        func run() async throws { try await AdminKeysCommands.setStatus("disabled", key: key, admin: admin) }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a disabled key verify tokens again.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The key id.") var key: String

        func run() async throws { try await AdminKeysCommands.setStatus("active", key: key, admin: admin) }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a key for good: tokens it signed are refused, and it cannot be uploaded again.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "The key id.") var key: String

        func run() async throws {
            let id = try AdminPath.key(key)
            try await admin.client().call(.DELETE, "/admin/keys/\(id)")
            let summary = try JSONSerialization.data(
                withJSONObject: ["id": "layer:///keys/\(id)", "status": "deleted"],
                options: [.sortedKeys, .withoutEscapingSlashes])
            AdminOutput.print(summary, json: admin.json) { ["layer:///keys/\(id)  deleted"] }
        }
    }

    static func setStatus(_ status: String, key: String, admin: AdminOptions) async throws {
        let (answer, data) = try await admin.client().decode(
            KeyResponse.self, .PATCH, "/admin/keys/\(try AdminPath.key(key))", body: UpdateKeyRequest(status: status))
        AdminOutput.print(data, json: admin.json) { lines(answer) }
    }
}
