import ChatWire
import Foundation
import VouchResourceServer

/// Every open socket of every room, and each room's recent messages: the one place the chat's
/// state changes, so that a session ending, a fresh token and a message never race.
///
/// A socket lives under the access token it presented. The token's session ending (heard from
/// Vouch's stream) or its expiry puts the socket on hold: nothing is delivered to it or accepted
/// from it until the client sends a fresh token for the same user, within `window`. A suspension
/// or a sign-out closes it at once, since no fresh token can follow.
actor ChatHub {
    /// What a socket's writer task sends, in order.
    enum Outgoing: Sendable {
        case frame(String)
        case close(code: Int, reason: String)
    }

    /// A room of one app: apps that share the chat server (an audience each registered) never
    /// share a room.
    struct RoomKey: Hashable, Sendable {
        let app: UUID
        let name: String
    }

    private struct Socket {
        let id: Int
        let room: RoomKey
        var token: VerifiedAccessToken
        /// Set while a fresh token is due: why, and by when.
        var hold: (reason: String, deadline: ContinuousClock.Instant)?
        /// Frames kept for the socket while on hold, sent once it resumes.
        var held: [String] = []
        let outbox: AsyncStream<Outgoing>.Continuation
        var user: String { token.userID }
    }

    /// Kinds of ending after which the same user cannot come back on this socket.
    static let finalEndings: Set<String> = ["suspended", "signed_out", "deleted"]
    /// Frames kept for a socket on hold; past it the socket is closed as too slow.
    static let maximumHeldFrames = 256

    /// How many sockets the hub holds, and how many of them one user of one app may hold.
    struct Capacity: Sendable {
        var sockets: Int
        var socketsPerUser: Int
    }

    /// What became of a socket that asked to join.
    enum Admission: Sendable {
        case joined(id: Int)
        /// Closed at once with `code`: the hub or the user is at capacity.
        case refused(code: Int, reason: String)
    }

    private let verifier: AccessTokenVerifier
    private let window: Duration
    private let capacity: Capacity
    private let events: EventLine
    private var sockets: [Int: Socket] = [:]
    private var histories: [RoomKey: [ChatMessage]] = [:]
    private var nextID = 1

    init(verifier: AccessTokenVerifier, window: Duration, capacity: Capacity, events: EventLine) {
        self.verifier = verifier
        self.window = window
        self.capacity = capacity
        self.events = events
    }

    /// Adds a socket to `room`, sends it the welcome, and tells the room when the user arrived;
    /// or refuses it when the hub, or the user, holds as many sockets as allowed.
    func join(room name: String, token: VerifiedAccessToken, outbox: AsyncStream<Outgoing>.Continuation) -> Admission {
        guard sockets.count < capacity.sockets else {
            events.print("chat", "refusing a socket of \(token.userID): the server holds \(capacity.sockets)")
            return .refused(code: ChatCloseCode.full, reason: "the chat is full; try again later")
        }
        let usersSockets = sockets.values.count { $0.token.appID == token.appID && $0.user == token.userID }
        guard usersSockets < capacity.socketsPerUser else {
            events.print("chat", "refusing a socket of \(token.userID): \(usersSockets) open already")
            return .refused(code: ChatCloseCode.tooManySockets, reason: "at most \(capacity.socketsPerUser) sockets a user")
        }
        let id = nextID
        nextID += 1
        let room = RoomKey(app: token.appID, name: name)
        let arriving = !sockets.values.contains { $0.room == room && $0.user == token.userID }
        sockets[id] = Socket(id: id, room: room, token: token, outbox: outbox)
        let members = Set(sockets.values.filter { $0.room == room }.map(\.user)).sorted()
        send(ServerFrame(type: .welcome, room: name, user: token.userID, members: members, history: histories[room] ?? []), to: id)
        events.print("chat", "\(token.userID) joined #\(name) on socket \(id) (session \(token.sessionID.uuidString.lowercased()))")
        if arriving {
            broadcast(ServerFrame(type: .presence, room: name, user: token.userID, event: "joined"), in: room, except: id)
        }
        return .joined(id: id)
    }

    /// A text frame from socket `id`.
    func received(_ text: String, from id: Int) async {
        guard sockets[id] != nil else { return }
        guard let frame = ChatJSON.decode(ClientFrame.self, text) else {
            send(ServerFrame(type: .error, reason: "not a frame of this chat"), to: id)
            return
        }
        switch frame.type {
        case .say: say(frame.text ?? "", from: id)
        case .token: await renew(with: frame.accessToken ?? "", on: id)
        }
    }

    /// Tells socket `id` that the frames it sends past its budget are dropped unread.
    func overBudget(_ id: Int) {
        send(
            ServerFrame(
                type: .error,
                reason: "slow down: at most \(ChatLimits.framesPerSecond) frames a second; frames past it are dropped"),
            to: id)
    }

    /// Removes socket `id` (closed by either side); the room hears when the user's last socket left.
    func leave(_ id: Int, reason: String) {
        guard let socket = sockets.removeValue(forKey: id) else { return }
        socket.outbox.finish()
        events.print("chat", "\(socket.user) left #\(socket.room.name) from socket \(id): \(reason)")
        if !sockets.values.contains(where: { $0.room == socket.room && $0.user == socket.user }) {
            broadcast(
                ServerFrame(type: .presence, room: socket.room.name, user: socket.user, event: "left", reason: reason), in: socket.room)
        }
    }

    /// Vouch's stream applied an ending: every socket whose token it ended is closed, or put on hold.
    func endingApplied(_ ending: SessionEnding) {
        let kind = ending.kind.rawValue
        for socket in sockets.values where verifier.endings.hasEnded(socket.token) {
            if Self.finalEndings.contains(kind) {
                drop(socket.id, code: ChatCloseCode.sessionEnded, reason: "session ended (\(kind))")
            } else if socket.hold == nil {
                hold(socket.id, reason: "session ended (\(kind))")
            }
        }
    }

    /// Puts sockets whose token expired on hold, and closes those on hold past their deadline.
    func sweep() {
        let now = Date()
        let instant = ContinuousClock.now
        for socket in sockets.values {
            if let hold = socket.hold {
                if instant >= hold.deadline {
                    drop(socket.id, code: ChatCloseCode.reauthenticationTimedOut, reason: "no fresh token after \(hold.reason)")
                }
            } else if socket.token.expiresAt <= now {
                hold(socket.id, reason: "token expired")
            }
        }
    }

    private func say(_ text: String, from id: Int) {
        guard let socket = sockets[id] else { return }
        // The sweep and the stream's observer run apart from this: a message never rides on a
        // token that expired or a session that ended in between.
        if socket.hold == nil, socket.token.expiresAt <= Date() { hold(id, reason: "token expired") }
        if socket.hold == nil, verifier.endings.hasEnded(socket.token) { hold(id, reason: "session ended") }
        guard sockets[id]?.hold == nil else {
            send(ServerFrame(type: .error, reason: "send a fresh token first"), to: id)
            return
        }
        guard !text.isEmpty, text.utf8.count <= ChatLimits.maximumTextBytes else {
            send(ServerFrame(type: .error, reason: "a message is 1…\(ChatLimits.maximumTextBytes) bytes"), to: id)
            return
        }
        let message = ChatMessage(from: socket.user, text: text, at: Date().timeIntervalSince1970)
        histories[socket.room, default: []].append(message)
        if histories[socket.room, default: []].count > ChatLimits.history { histories[socket.room]?.removeFirst() }
        broadcast(ServerFrame(type: .message, room: socket.room.name, message: message), in: socket.room)
    }

    /// A fresh token for socket `id`: verified (signature, audience, expiry, and not ended), and
    /// for the same user of the same app; its session may be another (a re-authentication).
    private func renew(with token: String, on id: Int) async {
        let verified: VerifiedAccessToken
        do {
            verified = try await verifier.verify(token)
        } catch {
            // The old session's token, sent before the client heard of the ending: it may try again.
            send(ServerFrame(type: .error, reason: "token refused: \(error)"), to: id)
            return
        }
        guard var socket = sockets[id] else { return }
        guard verified.userID == socket.token.userID, verified.appID == socket.token.appID else {
            drop(id, code: ChatCloseCode.wrongUser, reason: "a token for another user")
            return
        }
        let wasHeld = socket.hold
        socket.token = verified
        socket.hold = nil
        let held = socket.held
        socket.held = []
        sockets[id] = socket
        guard let wasHeld else {
            events.print("chat", "\(socket.user) renewed the token of socket \(id)")
            return
        }
        events.print("chat", "\(socket.user) resumed on socket \(id) after \(wasHeld.reason) (session \(verified.sessionID.uuidString.lowercased()))")
        send(ServerFrame(type: .resumed), to: id)
        for frame in held { socket.outbox.yield(.frame(frame)) }
    }

    private func hold(_ id: Int, reason: String) {
        guard var socket = sockets[id] else { return }
        socket.hold = (reason, ContinuousClock.now + window)
        sockets[id] = socket
        events.print("chat", "holding \(socket.user)'s socket \(id): \(reason); a fresh token is due within \(window)")
        send(ServerFrame(type: .reauthenticate, reason: reason, withinSeconds: window.seconds), to: id)
    }

    private func drop(_ id: Int, code: Int, reason: String) {
        guard let socket = sockets[id] else { return }
        events.print("chat", "dropping \(socket.user)'s socket \(id): \(reason)")
        socket.outbox.yield(.close(code: code, reason: reason))
        leave(id, reason: reason)
    }

    private func broadcast(_ frame: ServerFrame, in room: RoomKey, except excluded: Int? = nil) {
        let text = ChatJSON.encode(frame)
        for socket in sockets.values where socket.room == room && socket.id != excluded { deliver(text, to: socket.id) }
    }

    /// Sends a frame about the socket itself (welcome, error), even while it is on hold.
    private func send(_ frame: ServerFrame, to id: Int) {
        guard let socket = sockets[id] else { return }
        if case .dropped = socket.outbox.yield(.frame(ChatJSON.encode(frame))) {
            drop(id, code: ChatCloseCode.tooSlow, reason: "too slow to read")
        }
    }

    /// Sends the room's traffic now, or keeps it while the socket is on hold.
    private func deliver(_ text: String, to id: Int) {
        guard var socket = sockets[id] else { return }
        guard socket.hold != nil else {
            if case .dropped = socket.outbox.yield(.frame(text)) {
                drop(id, code: ChatCloseCode.tooSlow, reason: "too slow to read")
            }
            return
        }
        guard socket.held.count < Self.maximumHeldFrames else {
            drop(id, code: ChatCloseCode.tooSlow, reason: "too much held while waiting for a fresh token")
            return
        }
        socket.held.append(text)
        sockets[id] = socket
    }
}
