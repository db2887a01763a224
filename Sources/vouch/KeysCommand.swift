import ArgumentParser
import Foundation
import VouchTokens

struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make RSA key pairs for Layer identity tokens, and manage a provider's keys on a server.",
        subcommands: [
            GenerateKeyCommand.self, AdminKeysCommands.Upload.self, AdminKeysCommands.List.self,
            AdminKeysCommands.Disable.self, AdminKeysCommands.Enable.self, AdminKeysCommands.Delete.self,
        ]
    )
}

struct GenerateKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate a new RSA key pair as PEM files.",
        discussion: """
            Writes private.pem (PKCS#8, mode 0600) and public.pem (SubjectPublicKeyInfo) into the \
            output directory, and prints the public key's fingerprint. Upload public.pem with \
            `POST /admin/providers/<uuid>/keys`; keep private.pem on the app's backend only.
            """
    )

    @Option(name: .long, help: "Directory to write private.pem and public.pem into (created if missing).")
    var out: String = "."

    @Option(name: .long, help: "Key size in bits: 2048, 3072 or 4096.")
    var bits: Int = 2048

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    @Flag(name: .long, help: "Replace existing key files.")
    var force = false

    func validate() throws {
        guard [2048, 3072, 4096].contains(bits) else { throw ValidationError("--bits must be 2048, 3072 or 4096") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        let privateURL = directory.appendingPathComponent("private.pem")
        let publicURL = directory.appendingPathComponent("public.pem")
        let files = FileManager.default
        if !force, files.fileExists(atPath: privateURL.path) || files.fileExists(atPath: publicURL.path) {
            throw CLIError("\(out) already holds private.pem or public.pem; pass --force to replace them")
        }
        do {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create \(out): \((error as NSError).localizedDescription)")
        }
        let pair = try RSAKeyPair.generate(bits: bits)
        try SecretFile.write(pair.privateKeyPEM, to: privateURL)
        do {
            try Data(pair.publicKeyPEM.utf8).write(to: publicURL)
        } catch {
            throw CLIError("cannot write \(publicURL.path): \((error as NSError).localizedDescription)")
        }
        if json {
            try JSONOutput.print([
                "private_key_file": privateURL.path, "public_key_file": publicURL.path, "fingerprint": pair.fingerprint,
            ])
        } else {
            print("private key: \(privateURL.path) (keep it secret)")
            print("public key:  \(publicURL.path)")
            print("fingerprint: \(pair.fingerprint)")
        }
    }
}
