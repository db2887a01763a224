import Foundation
import Logging
import Testing
import VouchProtocol
import VouchResourceServer
import VouchTestSupport

/// `VouchResourceServer` against a real `vouch serve` (PROTOCOL §8.16): a service that verifies
/// offline, through key rotations, and hears endings over the stream.
@Suite("A service verifying offline: rotations refuse nothing, endings refuse at once", .serialized)
struct ResourceServerTests {
    static let quiet: Logger = {
        var logger = Logger(label: "resource-server-test")
        logger.logLevel = .critical
        return logger
    }()

    static func verifier(
        _ server: LiveServer, audience: String, configure: (inout AccessTokenVerifier.Configuration) -> Void = { _ in }
    )
        -> AccessTokenVerifier
    {
        var configuration = AccessTokenVerifier.Configuration(issuer: "http://127.0.0.1:\(server.port)", audience: audience)
        configure(&configuration)
        let clock = server.clock
        return AccessTokenVerifier(configuration: configuration, logger: quiet, now: { Double(clock.now) })
    }

    static func mint(_ server: LiveServer, _ session: String) async throws -> String {
        let answer = try await AccessTokenTests.mint(server, session: session)
        guard let token = answer.json["access_token"] as? String else { throw TestFailure("mint answered \(answer.status): \(answer.text)") }
        return token
    }

    static func kid(_ token: String) throws -> String { try AccessTokenTests.parts(token).header["kid"] as? String ?? "" }

    @Test("keys rotate every few seconds under steady minting: every token verifies offline, old and new, with no refetch on an unknown kid")
    func rotationUnderTraffic() async throws {
        try await LiveServer.run(configure: { configuration in
            configuration.signingKeys.jwksMaxAgeSeconds = 1
            configuration.signingKeys.publishLeadSeconds = 2
            configuration.signingKeys.rotationIntervalSeconds = 4
            configuration.signingKeys.checkIntervalSeconds = 1
        }) { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            // A fetch on an unknown kid would hide a key published too late: it is off here.
            let verifier = Self.verifier(server, audience: app) { configuration in
                configuration.minimumCacheLifetime = 1
                configuration.maximumCacheLifetime = 1
                configuration.unknownKeyRefetchInterval = 3600
            }
            let session = try await fixture.signedInSession()
            var tokens: [String] = []
            var rejections: [String] = []
            var kids: Set<String> = []
            for _ in 0..<16 {
                server.clock.advance(by: 1)
                // The rotation service checks once a second of real time.
                try await Task.sleep(for: .milliseconds(1100))
                let token = try await Self.mint(server, session)
                kids.insert(try Self.kid(token))
                tokens.append(token)
                // This second's token and every earlier one still alive.
                for index in tokens.indices {
                    if let failure = await Self.failure(verifying: tokens[index], with: verifier) {
                        rejections.append("token \(index): \(failure)")
                    }
                }
            }
            #expect(rejections.isEmpty, "\(rejections)")
            #expect(kids.count >= 3, "at least two rotations happened: \(kids.count) keys signed")
            let published = try await server.request(.GET, "/.well-known/jwks.json").json["keys"] as? [[String: Any]] ?? []
            #expect(published.count >= 2, "the signing key and its predecessors within their retention")
        }
    }

    @Test("a subscribed service refuses the tokens of a session the moment it ends, by every kind of ending; others keep working")
    func endingsReachTheService() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let service = try await IntrospectionTests.credential(server, app: fixture.appID)
            let verifier = Self.verifier(server, audience: app)
            let follower = SessionEndingsFollower(
                vouchURL: URL(string: "http://127.0.0.1:\(server.port)")!, credential: service.text, endings: verifier.endings,
                logger: Self.quiet)
            let following = Task { await follower.run() }
            defer { following.cancel() }
            let deadline = ContinuousClock.now + .seconds(10)
            while !follower.isConnected, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(follower.isConnected)

            let bystander = try await Self.mint(server, try await fixture.signedInSession(user: "zoe"))
            let revoked = try await fixture.signedInSession(user: "alice")
            try await Self.expectEnded(verifier, try await Self.mint(server, revoked), "revocation") {
                _ = try await server.request(.DELETE, "/sessions/\(revoked)")
            }
            let phone = try await DeviceAPITests.signIn(fixture, user: "bob")
            let laptop = try await DeviceAPITests.signIn(fixture, user: "bob")
            try await Self.expectEnded(verifier, try await Self.mint(server, phone.token), "sign-out") {
                _ = try await server.request(.DELETE, "/sessions/id/\(phone.id)", headers: AccessTokenTests.bearer(laptop.token))
            }
            try await Self.expectEnded(verifier, try await Self.mint(server, try await fixture.signedInSession(user: "carol")), "suspension") {
                _ = try await server.request(.PATCH, "/admin/apps/\(app)/users/carol", body: #"{"suspended":true}"#, admin: true)
            }
            try await Self.expectEnded(verifier, try await Self.mint(server, try await fixture.signedInSession(user: "dave")), "user cutoff") {
                _ = try await server.post("/admin/apps/\(app)/users/dave/cutoff", [:], admin: true)
            }
            // The laptop's token survived its sibling's sign-out, and the bystander everything so far.
            _ = try await verifier.verify(try await Self.mint(server, laptop.token))
            _ = try await verifier.verify(bystander)
            try await Self.expectEnded(verifier, try await Self.mint(server, try await fixture.signedInSession(user: "erin")), "key cutoff") {
                _ = try await server.post("/admin/keys/\(Fixture.bare(fixture.activeKey.id))/cutoff", [:], admin: true)
            }
            // A session made after the key's cutoff records the new generation and lives.
            let after = try await Self.mint(server, try await fixture.signedInSession(user: "frank"))
            _ = try await verifier.verify(after)
            try await Self.expectEnded(verifier, after, "provider cutoff") {
                _ = try await server.post("/admin/providers/\(Fixture.bare(fixture.providerID))/cutoff", [:], admin: true)
            }
            try await Self.expectEnded(verifier, try await Self.mint(server, try await fixture.signedInSession(user: "grace")), "app cutoff") {
                _ = try await server.post("/admin/apps/\(app)/cutoff", [:], admin: true)
            }
            let bystanderFailure = await Self.failure(verifying: bystander, with: verifier)
            #expect(bystanderFailure != nil, "the app's cutoff left the bystander's token working")
        }
    }

    /// Why `verifier` refuses `token`, or `nil` when it verifies.
    static func failure(verifying token: String, with verifier: AccessTokenVerifier) async -> String? {
        do {
            _ = try await verifier.verify(token)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Verifies `token`, runs `action`, then waits (5 s at most) for the verifier to refuse it as ended.
    static func expectEnded(
        _ verifier: AccessTokenVerifier, _ token: String, _ what: String, after action: () async throws -> Void
    ) async throws {
        _ = try await verifier.verify(token)
        try await action()
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            if let failure = await failure(verifying: token, with: verifier) {
                #expect(failure.hasPrefix("sessionEnded"), "\(what): \(failure)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("\(what): the token still verified 5 s after the ending")
    }

    @Test("the access token verifies with PyJWT, which knows only the issuer (discovery, then the JWKS)", .enabled(if: PyJWT.inCI || PyJWT.available))
    func pyJWTInterop() async throws {
        try await LiveServer.run(configure: {
            $0.signingKeys.jwksMaxAgeSeconds = 1
            $0.signingKeys.publishLeadSeconds = 2
        }) { server in
            let fixture = try await Fixture.make(server)
            let app = Fixture.bare(fixture.appID)
            let token = try await Self.mint(server, try await fixture.signedInSession(user: "alice"))
            // PyJWT checks exp and iat against the machine's clock: the test server's is the machine's at its start.
            let result = try await PyJWT.verify(["access", "--issuer", "http://127.0.0.1:\(server.port)", "--audience", app, token])
            #expect(result.status == 0, "\(result.error)")
            let claims = (try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) as? [String: Any] ?? [:]
            #expect(claims["sub"] as? String == "alice")
            #expect(claims["app"] as? String == app)
            let wrongAudience = try await PyJWT.verify(["access", "--issuer", "http://127.0.0.1:\(server.port)", "--audience", "chat", token])
            #expect(wrongAudience.status == 1)
        }
    }
}

/// The independent verifier: scripts/verify_token.py, on PyJWT.
enum PyJWT {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }
    static let available: Bool = {
        guard let probe = try? ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", "import jwt, cryptography"]) else {
            return false
        }
        return probe.waitForExitBlocking() == .exited(0)
    }()

    static func verify(_ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let result = try await ChildProcess.run(
            executable: "/usr/bin/env", arguments: ["python3", packageRoot.appendingPathComponent("scripts/verify_token.py").path] + arguments)
        guard case .exited(let status) = result.termination else { return (-1, result.stdout, result.stderr) }
        return (status, result.stdout, result.stderr)
    }
}
