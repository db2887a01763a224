// The example chat service's terminal client (README, "Example: a chat service"), built on
// VouchClient: type a line to say it, or one of the commands of `/help`.
import ArgumentParser
import ChatWire
import Foundation
import VouchClient
import VouchClientWebSocket

@main
struct ChatClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat-client",
        abstract: "A terminal chat client: signs in through Vouch, then chats in a room of the example chat server.",
        discussion: """
            Type a line to say it in the room, or a command:
              /devices             the user's signed-in devices
              /signout-device D    sign out another device, by name or id
              /join ROOM           move to another room
              /signin              sign in again (after a sign-out or a suspension)
              /signout             sign this device out
              /quit                leave (the session stays for the next start)
            Every line printed is stamped and names what it is about: vouch (the session), chat \
            (the room) or devices. Signed out from another device, the client wipes the user's \
            data and stops.
            """)

    @Option(name: .long, help: "The user to sign in as (the development identity provider vouches for anyone).")
    var user: String

    @Option(name: .long, help: "This device's name, as the user's list of devices shows it.")
    var device: String

    @Option(name: .long, help: "Vouch's URL.")
    var vouchURL = "http://127.0.0.1:8080"

    @Option(name: .long, help: "The app's id (layer:///apps/<uuid> or the UUID); default: the VOUCH_APP_ID environment variable.")
    var appID: String?

    @Option(name: .long, help: "The development identity provider's URL (the app's backend).")
    var identityProviderURL = "http://127.0.0.1:8090"

    @Option(name: .long, help: "The chat server's URL.")
    var chatURL = "ws://127.0.0.1:8095"

    @Option(name: .long, help: "The room to join.")
    var room = "general"

    @Option(name: .long, help: "The audience of the chat server's access tokens.")
    var audience = "chat"

    @Option(name: .long, help: "Where this device keeps its session and the user's data (default: ./chat-data/USER-DEVICE).")
    var dataDir: String?

    @Flag(
        name: .long,
        help: "At a sign-out, leave the room's socket for the chat server to close (shows the server does not rely on clients).")
    var leaveSocketToServer = false

    @Flag(name: .long, help: "Stamp each line with Unix milliseconds instead of the time of day (for scripts).")
    var unixTimestamps = false

    func run() async throws {
        guard let appID = appID ?? ProcessInfo.processInfo.environment["VOUCH_APP_ID"] else {
            throw ValidationError("give --app-id or set VOUCH_APP_ID")
        }
        guard let vouch = URL(string: vouchURL), let backendURL = URL(string: identityProviderURL), let chat = URL(string: chatURL) else {
            throw ValidationError("--vouch-url, --identity-provider-url and --chat-url must be URLs")
        }
        let out = EventLine(unixStamps: unixTimestamps)
        let backend = IdentityBackend(url: backendURL, appID: appID)
        let storage = URL(fileURLWithPath: dataDir ?? "chat-data/\(user)-\(device)", isDirectory: true)
        try FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true)
        let client = try VouchClient(
            serverURL: vouch, appID: appID,
            configuration: .init(
                storageDirectory: storage,
                identityTokenProvider: { userID, nonce in try await backend.identityToken(userID: userID, nonce: nonce) },
                device: .thisDevice(name: device),
                liveChannelTransport: WebSocketLiveChannelTransport()))
        let session = ChatSession(
            client: client, user: user, room: room, chatURL: chat, audience: audience, out: out, leavesSocketToServer: leaveSocketToServer)

        let watcher = Task { await Self.watch(client, session: session, out: out) }
        defer { watcher.cancel() }
        await session.signIn()
        for await line in StandardInput.lines() {
            guard try await Self.perform(line, session: session, out: out) else { break }
        }
    }

    /// One line of input; false when the client should stop.
    private static func perform(_ line: String, session: ChatSession, out: EventLine) async throws -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("/") else {
            if !trimmed.isEmpty { await session.say(trimmed) }
            return true
        }
        let parts = trimmed.split(separator: " ", maxSplits: 1).map(String.init)
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        switch parts[0] {
        case "/devices": await session.listDevices()
        case "/signout-device" where !argument.isEmpty: await session.signOutDevice(argument)
        case "/join" where !argument.isEmpty: await session.join(argument)
        case "/signin": await session.signIn()
        case "/signout": await session.signOut()
        case "/quit": return false
        default: out.print("help", "say something, or /devices, /signout-device D, /join ROOM, /signin, /signout, /quit")
        }
        return true
    }

    /// Prints what VouchClient tells, as it tells it, and reacts to a sign-out.
    private static func watch(_ client: VouchClient, session: ChatSession, out: EventLine) async {
        for await event in client.events() {
            switch event {
            case .authenticationChallenge(_, let reason): out.print("vouch", "challenged (\(reason.rawValue))")
            case .didAuthenticate(let identity): out.print("vouch", "authenticated as \(identity.userID)")
            case .didDeauthenticate(let userID, let reason):
                out.print("vouch", "\(userID) signed out: \(reason)")
                await session.deauthenticated(reason: reason)
                if reason == .signedOutFromAnotherDevice {
                    out.print("vouch", "this device was signed out from another one: stopping")
                    Foundation.exit(0)
                }
            case .storedSessionDiscarded(let reason): out.print("vouch", "stored session discarded (\(reason))")
            case .liveChannelConnected: out.print("vouch", "live channel connected")
            case .liveChannelDisconnected(let disconnection): out.print("vouch", "live channel closed (\(disconnection))")
            case .liveChannelChallenge(let reason, _): out.print("vouch", "live challenge (\(reason.rawValue))")
            case .liveChannelReauthenticated(let identity): out.print("vouch", "re-authenticated as \(identity.userID) over the live channel")
            }
        }
    }
}
