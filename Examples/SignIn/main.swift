// An app's sign-in, end to end, using only VouchClient's public API (and URLSession to reach the
// app's own backend, here the development identity provider).
//
//   vouch-client-example --server http://127.0.0.1:8080 --app-id <app id> \
//       --backend http://127.0.0.1:8090 [--admin-token <token>]
//
// With --admin-token it also plays the operator who revokes the user's sessions, to show the
// client answering the challenge by itself.
import Foundation
import VouchClient
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Options {
    var server = URL(string: "http://127.0.0.1:8080")!
    var appID = ""
    var backend = URL(string: "http://127.0.0.1:8090")!
    var adminToken: String?

    init(_ arguments: [String]) throws {
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { throw ExampleError("\(name) needs a value") }
            switch name {
            case "--server": server = URL(string: value) ?? server
            case "--app-id": appID = value
            case "--backend": backend = URL(string: value) ?? backend
            case "--admin-token": adminToken = value
            default: throw ExampleError("unknown option \(name)")
            }
        }
        guard !appID.isEmpty else { throw ExampleError("--app-id is required") }
    }
}

struct ExampleError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The app's backend: after authenticating its user its own way, it vouches for them.
func identityToken(backend: URL, appID: String, userID: String, nonce: String) async throws -> String {
    var request = URLRequest(url: backend.appendingPathComponent("identity_tokens"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = try JSONSerialization.data(withJSONObject: ["app_id": appID, "user_id": userID, "nonce": nonce])
    let (data, _) = try await URLSession.shared.data(for: request)
    guard let token = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["identity_token"] as? String else {
        throw ExampleError("the backend answered \(String(decoding: data, as: UTF8.self))")
    }
    return token
}

/// The operator's revocation (admin API), to provoke an authentication challenge.
func revokeSessions(server: URL, appID: String, userID: String, adminToken: String) async throws {
    let app = appID.split(separator: "/").last.map(String.init) ?? appID
    var request = URLRequest(url: server.appendingPathComponent("admin/apps/\(app)/users/\(userID)/sessions"))
    request.httpMethod = "DELETE"
    request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
    _ = try await URLSession.shared.data(for: request)
}

func run() async throws {
    let options = try Options(CommandLine.arguments)
    let storage = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-example-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: storage) }

    // 1. The client, with the provider it uses to answer challenges by itself.
    let backend = options.backend, appID = options.appID
    let client = try VouchClient(
        serverURL: options.server, appID: appID,
        configuration: .init(
            storageDirectory: storage,
            identityTokenProvider: { userID, nonce in
                try await identityToken(backend: backend, appID: appID, userID: userID, nonce: nonce)
            }))
    // The state a UI draws from: the current one first, then every change. A challenge the
    // client answers is "re-authenticating", never a sign-out.
    print("state at launch:", describe(client.currentState))
    let states = Task {
        for await state in client.states() { print("state:", describe(state)) }
    }
    let events = Task {
        for await event in client.events() {
            // Event kinds only: a nonce or a token is never worth a log line.
            switch event {
            case .authenticationChallenge(_, let reason): print("event: challenge (\(reason.rawValue))")
            case .didAuthenticate(let user): print("event: authenticated as \(user.userID)")
            case .didDeauthenticate(let userID, let reason): print("event: deauthenticated \(userID) (\(reason))")
            case .storedSessionDiscarded(let reason): print("event: stored session discarded (\(reason))")
            // The live channel: the server's word that a session ended, without waiting for a 401.
            case .liveChannelConnected: print("event: live channel connected")
            case .liveChannelDisconnected(let disconnection): print("event: live channel \(disconnection)")
            case .liveChannelChallenge(let reason, _): print("event: live challenge (\(reason.rawValue))")
            case .liveChannelReauthenticated(let user): print("event: re-authenticated \(user.userID) over the live channel")
            }
        }
    }

    // 2. LayerKit's flow, by hand: nonce → backend → identity token → session.
    guard let nonce = try await client.requestAuthenticationNonce() else { throw ExampleError("already signed in") }
    let alice = try await client.authenticate(
        identityToken: try await identityToken(
            backend: backend, appID: appID, userID: "alice", nonce: nonce))
    print("signed in as", alice.userID)
    print("the server says:", try await client.currentUserFromServer().user.userID)

    // 3. A revocation: the next request is challenged and the client signs in again by itself.
    if let adminToken = options.adminToken {
        try await revokeSessions(server: options.server, appID: appID, userID: "alice", adminToken: adminToken)
        print("after revocation the server says:", try await client.currentUserFromServer().user.userID)
    }

    // 4. The user's devices, as a "signed-in devices" screen lists them (this one is marked).
    for device in try await client.devices() {
        print("device:", device.platform ?? "unknown platform", device.isCurrent ? "(this device)" : "")
    }

    // 5. Another user on the same device: one call.
    let bob = try await client.connect(userID: "bob")
    print("switched to", bob.userID, "- the server says:", try await client.currentUserFromServer().user.userID)

    // 6. Sign out: server session ended, local session and data container gone.
    print("signed out:", try await client.deauthenticate())
    events.cancel()
    states.cancel()
}

/// A state in words, without anything secret in it.
func describe(_ state: VouchClientState) -> String {
    switch state {
    case .unknown: "unknown (the stored session could not be read yet)"
    case .signedOut: "signed out"
    case .signingIn(let userID): "signing in \(userID)"
    case .signedIn(let user): "signed in as \(user.userID)"
    case .reauthenticating(let user): "re-authenticating \(user.userID)"
    }
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("vouch-client-example: \(error)\n".utf8))
    exit(1)
}
