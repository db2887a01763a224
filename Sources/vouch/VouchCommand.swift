import ArgumentParser

/// The one executable: server, development identity provider, and token tools.
@main
struct VouchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vouch",
        abstract: "Let an app's backend vouch for its users to a realtime service.",
        discussion: """
            Start the authentication server with `vouch serve`. Mint tokens as an app's backend would \
            with `vouch token mint` (Layer identity tokens) or `vouch token mint-registration` \
            (Sinch registration tokens). See docs/PROTOCOL.md for the wire protocol.
            """,
        subcommands: [
            ServeCommand.self, IdentityProviderCommand.self, KeysCommand.self, TokenCommand.self,
            AppsCommand.self, ProvidersCommand.self, UsersCommand.self, SecretsCommand.self,
            ServiceCredentialsCommand.self, WebhooksCommand.self, SessionsCommand.self, CutoffCommand.self, AuditCommand.self,
        ]
    )
}
