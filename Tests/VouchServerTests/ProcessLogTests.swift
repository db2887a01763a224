import Foundation
import Testing
import VouchTokens

/// Nothing secret may reach a log line: run a whole session's life at `--log-level trace` and
/// search everything the server wrote for every secret that passed through it.
@Suite(
    "vouch serve logs", .serialized, .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
    .timeLimit(.minutes(2)))
struct ProcessLogTests {
    @Test("at trace level the server's output holds no token, secret or key")
    func noSecretsInLogs() async throws {
        try await ProcessScratch.with { scratch in
            let adminToken = "log-test-admin-token-\(UUID().uuidString)"
            let server = try await scratch.startServer(arguments: ["--log-level", "trace"], adminToken: adminToken)
            let (app, provider) = try await server.makeAppAndProvider()
            let (key, privateKeyPEM) = try await server.generateKey(provider: provider)
            let secret = try await server.admin(.POST, "/admin/apps/\(app)/registration-secrets", expect: 201)
            let applicationSecret = try #require(secret["application_secret"].string)

            let minter = try ProcessMint.minter(privateKeyPEM: privateKeyPEM, provider: provider, key: key)
            let identityToken = try minter.mint(userID: "alice", nonce: try await server.nonce())
            let signIn = try await server.signIn(identityToken, app: app)
            #expect(signIn.status == 201, "\(signIn)")
            let sessionToken = try #require(signIn.json["session_token"].string)
            #expect(try await server.me(sessionToken).status == 200)
            #expect(try await server.signIn(identityToken, app: app).status == 422, "a refused token is logged too")
            #expect(try await server.request(.DELETE, "/sessions/\(sessionToken)").status == 204)
            #expect(try await server.me(sessionToken).status == 401)
            #expect(try await server.request(.GET, "/admin/apps", headers: [("Authorization", "Bearer \(adminToken)x")]).status == 403)

            #expect(try await server.child.stop() == .exited(0))
            let output = server.child.stdout + server.child.stderr
            #expect(output.contains("route=/sessions"), "the request log is on: \(output.suffix(500))")
            let pemBody = privateKeyPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? privateKeyPEM
            let secrets: [(String, String)] = [
                ("admin token", adminToken), ("identity token", identityToken),
                ("identity token signature", String(identityToken.split(separator: ".").last ?? "")),
                ("session token", sessionToken), ("registration secret", applicationSecret), ("private key", pemBody),
            ]
            for (name, secret) in secrets {
                #expect(!secret.isEmpty && !output.contains(secret), "the \(name) appears in the server's output")
            }
        }
    }
}
