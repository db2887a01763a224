// The example chat server (README, "Example: a chat service"): it trusts Vouch for identity and
// for nothing else. Access tokens are verified offline against Vouch's published keys, and a
// socket whose session Vouch ends is closed, or held until the client sends a fresh token,
// the moment Vouch's stream of endings says so.
import ArgumentParser
import ChatWire
import Foundation
import Hummingbird
import Logging

@main
struct ChatServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-server",
        abstract: "The example chat service: rooms over WebSockets, for users Vouch vouches for.",
        discussion: """
            A client connects to ws://HOST:PORT/rooms/<room> with `Authorization: Bearer <access \
            token>`, an access token Vouch minted for --audience. The server checks it offline \
            against --vouch-url's published keys and follows that URL's stream of session endings \
            (GET /events) with a service credential of the app: a socket whose session was \
            suspended or signed out is closed at once (4001); one whose session was revoked or cut \
            off, or whose token expired, gets {"type":"reauthenticate"} and must send a fresh \
            token within --reauthentication-window seconds, or is closed (4002). Messages stay in \
            memory: the last 50 of each room. Bounded: --max-sockets in all (past it a socket is \
            closed with 1013, try again later), --max-sockets-per-user (4009), 20 frames a second \
            from a socket with a burst of 40 (past it frames are dropped, with one error frame), \
            16 KiB a frame (1009), --idle-timeout seconds of silence on a connection.
            """)

    @Option(name: .long, help: "Vouch's public URL: the access tokens' issuer, its JWKS and its event stream.")
    var vouchURL: String

    @Option(name: .long, help: "The audience the app's access tokens for this service carry.")
    var audience = "chat"

    @Option(
        name: .long,
        help: "A file holding the app's service credential (vsc_…); default: the VOUCH_SERVICE_CREDENTIAL environment variable.")
    var credentialFile: String?

    @Option(name: .long, help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "Port to listen on (0 picks a free one).")
    var port = 8095

    @Option(name: .long, help: "Seconds a held socket has to send a fresh token.")
    var reauthenticationWindow: Double = 10

    @Option(name: .long, help: "Sockets the server holds at most, every room and user together.")
    var maxSockets = 1_000

    @Option(name: .long, help: "Sockets one user of one app may hold at most.")
    var maxSocketsPerUser = 8

    @Option(name: .long, help: "Seconds a connection may send nothing; a room socket is pinged twice as often, and its pong counts.")
    var idleTimeout: Double = 60

    @Flag(name: .long, help: "Stamp each line with Unix milliseconds instead of the time of day (for scripts).")
    var unixTimestamps = false

    func validate() throws {
        guard let url = URL(string: vouchURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--vouch-url must be an http(s) URL")
        }
        guard (0.5...300).contains(reauthenticationWindow) else { throw ValidationError("--reauthentication-window is 0.5…300 seconds") }
        guard (1...100_000).contains(maxSockets) else { throw ValidationError("--max-sockets is 1…100000") }
        guard (1...1_000).contains(maxSocketsPerUser) else { throw ValidationError("--max-sockets-per-user is 1…1000") }
        guard (1...3_600).contains(idleTimeout) else { throw ValidationError("--idle-timeout is 1…3600 seconds") }
    }

    func run() async throws {
        let credential = try readCredential()
        guard let url = URL(string: vouchURL.hasSuffix("/") ? String(vouchURL.dropLast()) : vouchURL) else { return }
        var logger = Logger(label: "chat-server")
        logger.logLevel = .warning
        let app = ChatApplication.make(
            .init(
                host: host, port: port, vouchURL: url, audience: audience, credential: credential,
                reauthenticationWindow: .milliseconds(Int64(reauthenticationWindow * 1000)),
                capacity: .init(sockets: maxSockets, socketsPerUser: maxSocketsPerUser),
                idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), events: EventLine(unixStamps: unixTimestamps)),
            logger: logger)
        try await app.runService()
    }

    /// The credential, from its file or the environment; never from the command line, where
    /// other users of the machine would read it.
    private func readCredential() throws -> String {
        let text: String
        if let credentialFile {
            guard let contents = FileManager.default.contents(atPath: credentialFile) else {
                throw ValidationError("cannot read --credential-file \(credentialFile)")
            }
            text = String(decoding: contents, as: UTF8.self)
        } else {
            guard let value = ProcessInfo.processInfo.environment["VOUCH_SERVICE_CREDENTIAL"] else {
                throw ValidationError("give --credential-file or set VOUCH_SERVICE_CREDENTIAL (vouch service-credentials create)")
            }
            text = value
        }
        let credential = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard credential.hasPrefix("vsc_") else { throw ValidationError("the service credential starts with vsc_") }
        return credential
    }
}
