import ArgumentParser

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Mint, inspect and validate identity and registration tokens.",
        subcommands: [MintCommand.self, MintRegistrationCommand.self, InspectCommand.self, ValidateCommand.self]
    )
}
