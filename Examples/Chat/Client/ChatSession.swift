import ChatWire
import Foundation
import VouchClient

/// One person's chat on one device: the Vouch session (VouchClient), the room's socket opened
/// with an access token of that session, and what the user types. Everything the client learns
/// is printed as it happens, so that a person, or a script, sees each challenge, re-authentication
/// and sign-out.
actor ChatSession {
    let client: VouchClient
    let user: String
    let chatURL: URL
    let audience: String
    let out: EventLine
    /// Leaves the room's socket open at a sign-out, for the chat server to close (the demo's way
    /// to show that the server does not rely on clients closing it).
    let leavesSocketToServer: Bool

    private var room: String
    private var connection: RoomConnection?
    /// Counts sockets, so that events of a socket already replaced are ignored.
    private var socketNumber = 0
    /// While the server holds the socket: messages typed meanwhile, sent once it resumes.
    private var held = false
    private var pending: [String] = []
    private var renewing = false
    /// When the access token the socket is on expires, and how long it lived when it came.
    private var tokenExpiry: Date?
    private var tokenLifetime: TimeInterval?
    /// The user's data container while signed in: where the room's history is kept.
    private var dataContainer: URL?

    init(client: VouchClient, user: String, room: String, chatURL: URL, audience: String, out: EventLine, leavesSocketToServer: Bool) {
        self.leavesSocketToServer = leavesSocketToServer
        self.client = client
        self.user = user
        self.room = room
        self.chatURL = chatURL
        self.audience = audience
        self.out = out
    }

    // MARK: Commands

    /// Signs in (or resumes the stored session) and joins the room.
    func signIn() async {
        do {
            let identity = try await client.connect(userID: user)
            dataContainer = try await client.dataContainer()
            out.print("vouch", "signed in as \(identity.userID)")
            await openRoom()
        } catch {
            out.print("vouch", "sign-in failed: \(error)")
        }
    }

    func join(_ newRoom: String) async {
        room = newRoom
        await closeRoom()
        await openRoom()
    }

    func say(_ text: String) async {
        guard let connection else {
            out.print("chat", "not in a room (/signin, then /join ROOM)")
            return
        }
        if held {
            pending.append(text)
            out.print("chat", "queued until the server has a fresh token: \(text)")
            return
        }
        do {
            try await connection.send(.say(text))
        } catch {
            out.print("chat", "could not send: \(error)")
        }
    }

    func listDevices() async {
        do {
            for device in try await client.devices() {
                let name = device.name ?? "unnamed"
                out.print("devices", "\(device.id) \(name) \(device.platform ?? "-")\(device.isCurrent ? " (this device)" : "")")
            }
        } catch {
            out.print("devices", "could not list: \(error)")
        }
    }

    /// Signs out another of the user's devices, named by its name or its id.
    func signOutDevice(_ nameOrID: String) async {
        do {
            let devices = try await client.devices()
            guard let device = devices.first(where: { $0.id == nameOrID }) ?? devices.first(where: { $0.name == nameOrID && !$0.isCurrent })
            else {
                out.print("devices", "no other device is called \(nameOrID)")
                return
            }
            try await client.signOut(deviceWith: device.id)
            out.print("devices", "signed out \(device.name ?? device.id)")
        } catch {
            out.print("devices", "could not sign it out: \(error)")
        }
    }

    func signOut() async {
        do {
            out.print("vouch", "signed out (\(try await client.deauthenticate()))")
        } catch {
            out.print("vouch", "signed out here; the server could not be told: \(error)")
        }
    }

    // MARK: What VouchClient says

    /// The user is signed out, whoever decided it: the room's socket closes, and the data
    /// container is checked (VouchClient removes it, except after a merely expired session).
    func deauthenticated(reason: DeauthenticationReason) async {
        if !leavesSocketToServer { await closeRoom() }
        if let dataContainer {
            let gone = !FileManager.default.fileExists(atPath: dataContainer.path)
            out.print("vouch", gone ? "local data wiped (\(dataContainer.lastPathComponent) removed)" : "local data kept for the user's return")
        }
        dataContainer = nil
    }

    // MARK: The room

    private func openRoom() async {
        socketNumber += 1
        let number = socketNumber
        let url = chatURL.appendingPathComponent("rooms").appendingPathComponent(room)
        do {
            let token = try await client.accessToken(for: audience)
            let connection = try await RoomConnection.open(url: url, token: token.value)
            guard number == socketNumber else {
                await connection.close()
                return
            }
            self.connection = connection
            held = false
            remember(token)
            Task { await self.read(connection, number: number) }
            Task { await self.keepTokenFresh(number: number) }
        } catch {
            out.print("chat", "could not join #\(room): \(error)")
        }
    }

    private func closeRoom() async {
        socketNumber += 1
        let connection = self.connection
        self.connection = nil
        held = false
        pending = []
        await connection?.close()
    }

    private func read(_ connection: RoomConnection, number: Int) async {
        for await event in connection.frames {
            guard number == socketNumber else { return }
            switch event {
            case .frame(let frame): await handle(frame, number: number)
            case .closed(let code, let reason):
                out.print("chat", "disconnected by the server (\(code.map(String.init) ?? "no close frame") \(reason))")
                self.connection = nil
            }
        }
    }

    private func handle(_ frame: ServerFrame, number: Int) async {
        switch frame.type {
        case .welcome:
            let members = frame.members ?? []
            out.print("chat", "joined #\(frame.room ?? room) as \(frame.user ?? user); here: \(members.joined(separator: ", "))")
            for message in frame.history ?? [] { keep(message) }
        case .message:
            guard let message = frame.message else { return }
            out.print("chat", "<\(message.from)> \(message.text)")
            keep(message)
        case .presence:
            out.print("chat", "\(frame.user ?? "someone") \(frame.event ?? "?")\(frame.reason.map { " (\($0))" } ?? "")")
        case .reauthenticate:
            held = true
            out.print("chat", "the server holds this socket: \(frame.reason ?? "?"); sending a fresh token")
            await renewToken(number: number)
        case .resumed:
            held = false
            out.print("chat", "resumed on the same socket")
            let queued = pending
            pending = []
            for text in queued { await say(text) }
        case .error:
            out.print("chat", "refused: \(frame.reason ?? "?")")
            if held { await renewToken(number: number) }
        }
    }

    /// Sends the server a token of the current session. First a request to Vouch: if the session
    /// ended, it is challenged there and VouchClient signs in again (or joins the re-authentication
    /// the live channel already started), so the token that follows is the new session's.
    private func renewToken(number: Int) async {
        guard !renewing else { return }
        renewing = true
        defer { renewing = false }
        for attempt in 0..<20 where number == socketNumber {
            do {
                _ = try await client.currentUserFromServer()
                let token = try await client.accessToken(for: audience)
                guard number == socketNumber, let connection else { return }
                try await connection.send(.token(token.value))
                remember(token)
                return
            } catch {
                if client.currentState.user == nil { return }
                if attempt == 19 { out.print("chat", "no fresh token: \(error)") }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// Sends a fresh token before the socket's one expires (with half of its life left, and at
    /// least 3 s: room for a slow answer from Vouch on a busy machine), so that the server never
    /// has to hold the socket.
    private func keepTokenFresh(number: Int) async {
        while number == socketNumber {
            try? await Task.sleep(for: .seconds(1))
            guard number == socketNumber, !held, let expiry = tokenExpiry, let lifetime = tokenLifetime, let connection else { continue }
            let left = expiry.timeIntervalSinceNow
            guard left < max(3, lifetime / 2) else { continue }
            do {
                let token = try await client.accessToken(for: audience)
                guard token.expiresAt > expiry, number == socketNumber else { continue }
                try await connection.send(.token(token.value))
                remember(token)
                out.print("chat", "sent a fresh access token (the last one had \(Int(left.rounded())) s left)")
            } catch {
                continue
            }
        }
    }

    private func remember(_ token: AccessToken) {
        tokenExpiry = token.expiresAt
        tokenLifetime = token.expiresAt.timeIntervalSinceNow
    }

    /// Appends a message to the room's history in the user's data container (what a sign-out wipes).
    private func keep(_ message: ChatMessage) {
        guard let dataContainer else { return }
        let file = dataContainer.appendingPathComponent("\(room).jsonl")
        let line = Data((ChatJSON.encode(message) + "\n").utf8)
        if let handle = try? FileHandle(forWritingTo: file) {
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: line)
        } else {
            try? line.write(to: file)
        }
    }
}
