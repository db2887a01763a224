import Foundation
import VouchTokens

/// Sets up a running `vouch serve` for wrk: an app, a provider bound to it, a generated key, then
/// `count` sign-in bodies, each with its own nonce and token (a token signs in once), written one
/// per line to `signins.jsonl`, one live session token in `session.txt`, an access token of it in
/// `access-token.txt`, a service credential in `service-credential.txt`, and the key's public half
/// in `public-key.pem` (for the bare app's sign-in floor). Minting runs on
/// every core: it is the app backend's work, not the server's, and happens before the clock runs.
struct SignInPreparation {
    let api: BenchmarkAPI
    let count: Int
    let directory: URL
    /// The app's session lifetime (`--session-ttl`), when not the server's default.
    var sessionTTL: Int? = nil

    func run() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let world = try await api.setUp(sessionTTL: sessionTTL)
        let session = try await api.signIn(world)
        try Data(session.utf8).write(to: directory.appendingPathComponent("session.txt"))
        try Data(world.publicKeyPEM.utf8).write(to: directory.appendingPathComponent("public-key.pem"))
        try Data(try await api.accessToken(session).utf8).write(to: directory.appendingPathComponent("access-token.txt"))
        try Data(try await api.serviceCredential(appID: world.appID).utf8)
            .write(to: directory.appendingPathComponent("service-credential.txt"))

        let lines = try await Self.bodies(count, world: world, api: api)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: directory.appendingPathComponent("signins.jsonl"))
        print("prepared \(lines.count) sign-ins for app \(world.appID)")
    }

    /// `count` sign-in bodies (`{"identity_token", "app_id"}`), each with a fresh nonce from the
    /// server and its own token, for users that return every 5 000 tokens; minted on every core.
    static func bodies(_ count: Int, world: BenchmarkAPI.World, api: BenchmarkAPI) async throws -> [String] {
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<workers {
                let share = count / workers + (worker < count % workers ? 1 : 0)
                group.addTask {
                    var lines: [String] = []
                    lines.reserveCapacity(share)
                    for index in 0..<share {
                        let token = try world.minter.mint(
                            userID: "user-\(worker)-\(index % 5000)", nonce: try await api.nonce(),
                            ttl: 600)
                        lines.append(#"{"identity_token":"\#(token)","app_id":"\#(world.appID)"}"#)
                    }
                    return lines
                }
            }
            var all: [String] = []
            for try await lines in group { all += lines }
            return all
        }
    }
}
