import ArgumentParser

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the authentication server.")
    func run() async throws { throw CLIError("serve: not available in this build") }
}

struct IdentityProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "identity-provider", abstract: "Run the development identity provider.")
    func run() async throws { throw CLIError("identity-provider: not available in this build") }
}

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "validate", abstract: "Ask a server why it would refuse a token.")
    func run() async throws { throw CLIError("validate: not available in this build") }
}
