import Foundation
import NIOHTTP1
import Testing
import VouchProtocol
import VouchTokens

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `vouch` binary as an operator runs it: real processes, real sockets, real signals,
/// a real data directory that outlives the process (Support/ProcessHarness.swift).
///
/// Serialized: each test starts servers of its own, and this machine has two cores.
@Suite(
    "vouch as a process",
    .serialized,
    .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
    .timeLimit(.minutes(2))
)
struct ProcessTests {
    // MARK: - Admin token and data directory

    @Test("first start creates the data dir and a 0600 admin-token and prints the token; later starts reuse it; VOUCH_ADMIN_TOKEN overrides it")
    func adminTokenLifecycle() async throws {
        try await ProcessScratch.with { scratch in
            let dataDir = scratch.url("vouch-data")
            let tokenFile = dataDir.appendingPathComponent("admin-token")
            #expect(!FileManager.default.fileExists(atPath: dataDir.path))

            // First start: directory, file, token.
            let first = try await scratch.startServer()
            let token = first.adminToken
            #expect(token.utf8.count >= 32, "a generated admin token should carry at least 128 bits")
            #expect(try Self.mode(of: dataDir) == 0o700)
            #expect(try Self.mode(of: tokenFile) == 0o600)
            try await first.admin(.GET, "/admin/apps", expect: 200)
            try await first.admin(.POST, "/admin/apps", json: ["name": "survives restarts"], expect: 201)
            let denied = try await first.request(.GET, "/admin/apps", headers: [("Authorization", "Bearer not-the-admin-token-at-all")])
            #expect(denied.status == 403)
            #expect(denied.json["id"].string == "access_denied")
            try await first.child.stop()
            #expect(first.child.stdout.components(separatedBy: token).count - 1 == 1, "printed exactly once: \(first.child.stdout)")

            // Second start on the same directory: the same token, not printed again.
            let second = try await scratch.startServer()
            #expect(second.adminToken == token)
            let apps = try await second.admin(.GET, "/admin/apps", expect: 200)
            #expect(apps.array?.compactMap { $0["name"].string } == ["survives restarts"])
            try await second.child.stop()
            #expect(!second.child.stdout.contains(token), "a reused admin token must not be printed again")
            #expect(!second.child.stdout.contains("generated"))
            #expect(try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == token)

            // VOUCH_ADMIN_TOKEN overrides the file (which stays as it was).
            let override = "process-test-override-token-0123456789"
            let third = try await scratch.startServer(adminToken: override)
            try await third.admin(.GET, "/admin/apps", expect: 200)
            let withFileToken = try await third.request(.GET, "/admin/apps", headers: [("Authorization", "Bearer \(token)")])
            #expect(withFileToken.status == 403, "the file's token must not work while VOUCH_ADMIN_TOKEN is set")
            try await third.child.stop()
            #expect(!third.child.stdout.contains(token) && !third.child.stdout.contains(override))
            #expect(try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == token)

            // VOUCH_ADMIN_TOKEN on a first start: no token is generated or written.
            let fresh = try await scratch.startServer(dataDir: "fresh-data", adminToken: override)
            try await fresh.admin(.GET, "/admin/apps", expect: 200)
            try await fresh.child.stop()
            #expect(!FileManager.default.fileExists(atPath: scratch.url("fresh-data/admin-token").path))
            #expect(!fresh.child.stdout.contains("generated"))
        }
    }

    @Test("the generated admin token is on stdout while the server runs, even when stdout is not a terminal")
    func adminTokenPrintedAtOnce() async throws {
        try await ProcessScratch.with { scratch in
            // stdout is a file here, as under systemd, docker or `vouch serve > log &`.
            let server = try await scratch.startServer()
            let printed = await ProcessWait.eventually(timeout: .seconds(2)) { server.child.stdout.contains(server.adminToken) }
            #expect(
                printed,
                """
                the admin token is "shown this once", so it must reach stdout when it is generated, not when the \
                process exits (after kill -9 it would never be shown); stdout while listening: \(server.child.stdout.debugDescription)
                """)
            let lines = server.child.stdout.split(separator: "\n")
            if let tokenLine = lines.firstIndex(where: { $0.contains(server.adminToken) }),
                let listening = lines.firstIndex(where: { $0.contains("listening on") })
            {
                #expect(tokenLine < listening, "the token is generated before the server listens: \(lines)")
            }
            try await server.child.stop()
        }
    }

    // MARK: - Signals

    @Test("SIGTERM and SIGINT stop the server cleanly: exit status 0 within a few seconds", arguments: [SIGTERM, SIGINT])
    func cleanStop(signal: Int32) async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer()
            #expect(try await server.request(.GET, "/health").status == 200)
            // `stop` throws (and kills the child) when it has not exited within the timeout: that
            // is the bound. 10 s rather than 5: with the whole suite on two cores, a clean stop
            // that is quick alone can take longer than 5 s.
            let exit = try await server.child.stop(signal: signal, timeout: .seconds(10))
            #expect(exit == .exited(0), "signal \(signal): \(exit); stderr:\n\(server.child.stderrTail)")
            // The port is released.
            await #expect(throws: (any Error).self) { try await server.request(.GET, "/health") }
        }
    }

    /// Two servers on one SQLite file would each keep a session cache that the other's
    /// revocations never reach: the second is refused (kill -9's restart shows the lock goes with
    /// the process).
    @Test("a second vouch serve on the same SQLite data dir exits 1 saying why; the first keeps serving")
    func secondServerOnOneFile() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer()
            let second = try await scratch.run([
                "serve", "--host", "127.0.0.1", "--port", "0",
                "--data-dir", scratch.url("vouch-data").path,
            ])
            #expect(second.exit == .exited(1), "\(second)")
            #expect(second.stderr.contains("in use by another vouch serve"), "\(second)")
            #expect(!second.stderr.contains("unavailable("), "the reason, not the error's Swift spelling: \(second)")
            #expect(try await server.request(.GET, "/health").status == 200)
            try await server.child.stop()
        }
    }

    @Test("rejected sign-ins counted just before SIGTERM are written on the graceful stop, and found after a restart")
    func rejectionsFlushedOnShutdown() async throws {
        try await ProcessScratch.with { scratch in
            // A flush interval far longer than the test: only the shutdown can write them.
            let arguments = ["--rate-limit", "0", "--audit-flush-interval", "3600"]
            let server = try await scratch.startServer(arguments: arguments)
            let app = try await server.admin(.POST, "/admin/apps", json: ["name": "Audited"], expect: 201)["id"].string ?? ""
            for _ in 0..<7 {
                #expect(try await server.signIn("not.a.token", app: app).status == 422)
            }
            let exit = try await server.child.stop()
            #expect(exit == .exited(0), "\(exit); stderr:\n\(server.child.stderrTail)")

            let restarted = try await scratch.startServer(arguments: arguments)
            let page = try await restarted.admin(.GET, "/admin/audit?kind=sign_in_rejected", expect: 200)
            let events = page["events"].array ?? []
            #expect(events.count == 1, "\(page)")
            #expect(events.first?["app_id"].string == app)
            #expect(events.first?["detail"]["count"].int == 7)
            #expect(events.first?["detail"]["reason"].string?.hasPrefix("eit_") == true)
            try await restarted.child.stop()
        }
    }

    // MARK: - Restart durability

    @Test("after SIGTERM and a restart on the same data dir: sessions, key statuses, suspensions, deleted keys and nonces are as they were")
    func restartDurability() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer()
            let (app, provider) = try await server.makeAppAndProvider()

            // Key 1: generated by the server; the one users sign in with.
            let (activeKey, activePEM) = try await server.generateKey(provider: provider)
            let activePEMFile = scratch.url("active.pem")
            try activePEM.write(to: activePEMFile, atomically: true, encoding: .utf8)
            // Key 2: made with `vouch keys generate`, uploaded, then disabled.
            let generated = try await scratch.run(["keys", "generate", "--out", scratch.url("uploaded").path, "--json"])
            try #require(generated.exit == .exited(0), "\(generated)")
            let publicPEM = try String(contentsOf: scratch.url("uploaded/public.pem"), encoding: .utf8)
            let uploadedPEM = try String(contentsOf: scratch.url("uploaded/private.pem"), encoding: .utf8)
            let uploaded = try await server.admin(.POST, "/admin/providers/\(provider)/keys", json: ["public_key": publicPEM], expect: 201)
            #expect(uploaded["status"].string == "active")
            #expect(uploaded["private_key"].value == nil, "an uploaded key has no private part to show")
            let disabledKey = ProcessHarness.bare(try #require(uploaded["id"].string))
            try await server.admin(.PATCH, "/admin/keys/\(disabledKey)", json: ["status": "disabled"], expect: 200)
            // Key 3: generated, then deleted.
            let (deletedKey, deletedPEM) = try await server.generateKey(provider: provider)
            try await server.admin(.DELETE, "/admin/keys/\(deletedKey)", expect: 204)

            // Alice signs in with a token from `vouch token mint`.
            let aliceNonce = try await server.nonce()
            let minted = try await scratch.run([
                "token", "mint", "--provider-id", provider, "--key-id", activeKey,
                "--private-key", activePEMFile.path, "--user-id", "alice",
                "--nonce=\(aliceNonce)", "--display-name", "Alice",
            ])
            try #require(minted.exit == .exited(0), "\(minted)")
            let aliceSignIn = try await server.signIn(minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines), app: app)
            try #require(aliceSignIn.status == 201, "\(aliceSignIn)")
            let aliceSession = try #require(aliceSignIn.json["session_token"].string)

            // Mallory signs in (minted in-process) and is then suspended.
            let minter = try ProcessMint.minter(privateKeyPEM: activePEM, provider: provider, key: activeKey)
            let mallorySignIn = try await server.signIn(try minter.mint(userID: "mallory", nonce: try await server.nonce()), app: app)
            try #require(mallorySignIn.status == 201, "\(mallorySignIn)")
            let mallorySession = try #require(mallorySignIn.json["session_token"].string)
            let suspended = try await server.admin(.PATCH, "/admin/apps/\(app)/users/mallory", json: ["suspended": true], expect: 200)
            #expect(suspended["suspended"].bool == true)

            let keysBefore = try await Self.keyStatuses(server, provider: provider)
            #expect(keysBefore == [activeKey: "active", disabledKey: "disabled", deletedKey: "deleted"])
            // A nonce issued before the restart, used after it.
            let nonceAcrossRestart = try await server.nonce()

            try await server.child.stop()
            let restarted = try await scratch.startServer()
            #expect(restarted.adminToken == server.adminToken)

            // Alice's session works.
            let aliceMe = try await restarted.me(aliceSession)
            #expect(aliceMe.status == 200, "\(aliceMe)")
            #expect(aliceMe.json["user"]["user_id"].string == "alice")
            #expect(aliceMe.json["user"]["display_name"].string == "Alice")

            // Key statuses are as they were.
            #expect(try await Self.keyStatuses(restarted, provider: provider) == keysBefore)

            // Mallory is still suspended: her session is refused, and so is a new sign-in.
            let malloryStatus = try await restarted.admin(.GET, "/admin/apps/\(app)/users/mallory", expect: 200)
            #expect(malloryStatus["suspended"].bool == true)
            #expect(malloryStatus["active_sessions"].int == 0)
            let malloryMe = try await restarted.me(mallorySession)
            #expect(malloryMe.status == 401)
            #expect(malloryMe.json["data"]["reason"].string == "user_suspended")
            let malloryAgain = try await restarted.signIn(try minter.mint(userID: "mallory", nonce: try await restarted.nonce()), app: app)
            #expect(malloryAgain.json["data"]["reason"].string == "eit_user_suspended", "\(malloryAgain)")

            // The deleted key is a tombstone, the disabled key stays disabled.
            let deletedMinter = try ProcessMint.minter(privateKeyPEM: deletedPEM, provider: provider, key: deletedKey)
            let withDeleted = try await restarted.signIn(try deletedMinter.mint(userID: "bob", nonce: try await restarted.nonce()), app: app)
            #expect(withDeleted.status == 422)
            #expect(withDeleted.json["data"]["reason"].string == "eit_key_deleted", "\(withDeleted)")
            let disabledMinter = try ProcessMint.minter(privateKeyPEM: uploadedPEM, provider: provider, key: disabledKey)
            let withDisabled = try await restarted.signIn(try disabledMinter.mint(userID: "bob", nonce: try await restarted.nonce()), app: app)
            #expect(withDisabled.json["data"]["reason"].string == "eit_key_disabled", "\(withDisabled)")

            // The nonce secret survived: a nonce from before the restart admits one sign-in.
            let bob = try await restarted.signIn(try minter.mint(userID: "bob", nonce: nonceAcrossRestart), app: app)
            #expect(bob.status == 201, "a nonce issued before the restart should still be good: \(bob)")
            try await restarted.child.stop()
        }
    }

    // MARK: - kill -9 during a burst of sign-ins

    @Test("kill -9 in the middle of a burst of sign-ins: every session answered 201 works after the restart")
    func killDuringBurst() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer(arguments: ["--rate-limit", "0"])
            let (app, provider) = try await server.makeAppAndProvider()
            let (key, pem) = try await server.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)

            let result = try await ProcessBurst.signIns(
                total: 200, killAfter: 60, width: 16, through: [server], app: app, minter: minter,
                stopAfterKill: true
            ) { server.child.killNow() }
            let exit = try await server.child.waitForExit(timeout: .seconds(10))
            #expect(exit == .signalled(SIGKILL), "the server should have been killed part-way: \(exit)")
            #expect(result.unexpectedStatuses.isEmpty, "only 201s were expected before the kill: \(result.unexpectedStatuses)")
            try #require(result.sessions.count >= 60, "\(result.sessions.count) sessions were answered 201")
            #expect(result.failures > 0, "the kill should have cut off sign-ins in flight (\(result.sessions.count) answered 201)")

            let restarted = try await scratch.startServer(arguments: ["--rate-limit", "0"])
            let lost = ProcessBurstLost()
            try await withThrowingTaskGroup(of: Void.self) { group in
                var pending = result.sessions[...]
                func checkNext() {
                    guard let (session, user) = pending.popFirst().map({ ($0.token, $0.user) }) else { return }
                    group.addTask {
                        let me = try await restarted.me(session)
                        if me.status != 200 || me.json["user"]["user_id"].string != user {
                            await lost.add("\(user): \(me)")
                        }
                    }
                }
                for _ in 0..<16 { checkNext() }
                while try await group.next() != nil { checkNext() }
            }
            let missing = await lost.entries
            #expect(
                missing.isEmpty,
                """
                \(missing.count) of \(result.sessions.count) sessions answered 201 before kill -9 do not work after the \
                restart: \(missing.prefix(5))
                """)
            // And the restarted server signs in as before.
            let after = try await restarted.signIn(try minter.mint(userID: "after-restart", nonce: try await restarted.nonce()), app: app)
            #expect(after.status == 201, "\(after)")
            try await restarted.child.stop()
        }
    }

    // MARK: - Rate limit

    /// The one live check of the limiter (its arithmetic is tested on a hand-moved clock): at 1/s
    /// with a burst of 2, forty requests are refused somewhere unless they take 38 s, a margin no
    /// busy machine comes near.
    @Test("--rate-limit 1: a burst of POST /nonces is answered 429 rate_limit_exceeded with Retry-After")
    func rateLimit() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer(arguments: ["--rate-limit", "1"])
            var statuses: [Int] = []
            var limited: ProcessHTTPResponse?
            for _ in 0..<40 {
                let response = try await server.request(.POST, "/nonces")
                statuses.append(response.status)
                if response.status != 201 {
                    limited = response
                    break
                }
            }
            let refused = try #require(limited, "40 POST /nonces were never limited: \(statuses)")
            #expect(refused.status == 429)
            #expect(statuses.count - 1 >= 2, "the burst of 2 is allowed before the first 429: \(statuses)")
            let retryAfter = try #require(
                refused.header("Retry-After").flatMap { Int($0) }, "Retry-After: \(String(describing: refused.header("Retry-After")))")
            #expect((1...5).contains(retryAfter))
            #expect(refused.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(refused.json.keys == ["id", "code", "message", "url", "data"], "\(refused)")
            #expect(refused.json["id"].string == "rate_limit_exceeded")
            #expect(refused.json["code"].int == 7)
            #expect(refused.json["message"].string?.isEmpty == false)
            #expect(refused.json["url"].string?.hasPrefix("http") == true)
            #expect(refused.json["data"].keys != nil, "data is an object")

            // GET /health does not count. (That POST /sessions shares the budget is checked on a
            // hand-moved clock in ErrorHandlingTests: here a token may be back by the next request.)
            #expect(try await server.request(.GET, "/health").status == 200)

            // After Retry-After seconds, requests are allowed again.
            try await Task.sleep(for: .seconds(retryAfter) + .milliseconds(100))
            #expect(try await server.request(.POST, "/nonces").status == 201)
            try await server.child.stop()
        }
    }

    // MARK: - Development identity provider

    @Test("vouch identity-provider: identity and registration tokens it mints sign in; its errors are {error, status}")
    func developmentIdentityProvider() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer()
            let (app, provider) = try await server.makeAppAndProvider()
            let (key, pem) = try await server.generateKey(provider: provider)
            let pemFile = scratch.url("idp-private.pem")
            try pem.write(to: pemFile, atomically: true, encoding: .utf8)
            let secret = try await server.admin(.POST, "/admin/apps/\(app)/registration-secrets", expect: 201)
            let applicationKey = try #require(secret["application_key"].string)
            let applicationSecret = try #require(secret["application_secret"].string)

            let (idp, idpURL) = try await scratch.startIdentityProvider(
                providerID: provider, keyID: key, privateKeyFile: pemFile,
                registration: (applicationKey, applicationSecret))

            // Layer: nonce from the server → token from the IdP → session.
            let nonce = try await server.nonce()
            let issued = try await ProcessHTTP.send(
                .POST, idpURL + "/identity_tokens",
                json: [
                    "app_id": app, "user_id": "carol", "nonce": nonce, "display_name": "Carol",
                ])
            #expect(issued.status == 201, "\(issued)")
            let identityToken = try #require(issued.json["identity_token"].string)
            let session = try await server.signIn(identityToken, app: app)
            #expect(session.status == 201, "\(session)")
            #expect(session.json["user"]["user_id"].string == "carol")
            #expect(session.json["user"]["display_name"].string == "Carol")

            // Sinch: registration token from the IdP → session.
            let registration = try await ProcessHTTP.send(.POST, idpURL + "/registration_tokens", json: ["user_id": "dave_1"])
            #expect(registration.status == 201, "\(registration)")
            let registrationToken = try #require(registration.json["registration_token"].string)
            let sinchSession = try await server.signIn(registrationToken, app: app)
            #expect(sinchSession.status == 201, "\(sinchSession)")
            #expect(sinchSession.json["user"]["user_id"].string == "dave_1")
            let replayed = try await server.signIn(registrationToken, app: app)
            #expect(replayed.json["data"]["reason"].string == "eit_nonce_replayed", "\(replayed)")

            // Errors, all in the IdP's own shape.
            let missingNonce = try await ProcessHTTP.send(.POST, idpURL + "/identity_tokens", json: ["app_id": app, "user_id": "carol"])
            Self.expectIdentityProviderError(missingNonce, status: 422)
            let badAppID = try await ProcessHTTP.send(
                .POST, idpURL + "/identity_tokens",
                json: [
                    "app_id": "not-an-app", "user_id": "carol", "nonce": nonce,
                ])
            Self.expectIdentityProviderError(badAppID, status: 422)
            let notJSON = try await ProcessHTTP.send(.POST, idpURL + "/identity_tokens", headers: [("Content-Type", "text/plain")])
            Self.expectIdentityProviderError(notJSON, status: 400)
            let badUser = try await ProcessHTTP.send(.POST, idpURL + "/registration_tokens", json: ["user_id": "not allowed!"])
            Self.expectIdentityProviderError(badUser, status: 422)
            let unknownRoute = try await ProcessHTTP.send(.GET, idpURL + "/nothing-here")
            Self.expectIdentityProviderError(unknownRoute, status: 404)
            let wrongMethod = try await ProcessHTTP.send(.GET, idpURL + "/identity_tokens")
            Self.expectIdentityProviderError(wrongMethod, status: 405)
            #expect(try await idp.stop() == .exited(0), "the identity provider should exit 0 on SIGTERM: \(idp.stderrTail)")

            // Without a registration secret, /registration_tokens is a 404 in the same shape.
            let (plainIdP, plainURL) = try await scratch.startIdentityProvider(providerID: provider, keyID: key, privateKeyFile: pemFile)
            let unavailable = try await ProcessHTTP.send(.POST, plainURL + "/registration_tokens", json: ["user_id": "dave_1"])
            Self.expectIdentityProviderError(unavailable, status: 404)
            // …while /identity_tokens works as before.
            let again = try await ProcessHTTP.send(
                .POST, plainURL + "/identity_tokens",
                json: [
                    "app_id": app, "user_id": "carol", "nonce": try await server.nonce(),
                ])
            #expect(again.status == 201, "\(again)")
            #expect(try await plainIdP.stop() == .exited(0))
            try await server.child.stop()
        }
    }

    // MARK: - vouch token validate

    @Test("vouch token validate: exit 0 for a valid token, 1 with the reasons for an expired or used one, 2 when the server cannot be asked")
    func validateCommand() async throws {
        try await ProcessScratch.with { scratch in
            let server = try await scratch.startServer()
            let (app, provider) = try await server.makeAppAndProvider()
            let (key, pem) = try await server.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)

            func validate(
                _ token: String, server url: String = server.baseURL,
                adminToken: String = server.adminToken
            ) async throws -> ProcessCommandResult {
                try await scratch.run(["token", "validate", token, "--server", url, "--app-id", app, "--admin-token", adminToken])
            }

            // Unreachable: started first, because the CLI gives up only after its connect timeout.
            let closedPort = try await ProcessHarness.unusedPort()
            let someToken = try minter.mint(userID: "erin", nonce: try await server.nonce())
            async let unreachable = validate(someToken, server: "http://127.0.0.1:\(closedPort)")

            // Valid; and validating does not consume the nonce.
            let valid = try await validate(someToken)
            #expect(valid.exit == .exited(0), "\(valid)")
            #expect(valid.stdout.hasPrefix("valid"), "\(valid)")
            let signIn = try await server.signIn(someToken, app: app)
            #expect(signIn.status == 201, "validation must not consume the nonce: \(signIn)")

            // Used: the same token again.
            let used = try await validate(someToken)
            #expect(used.exit == .exited(1), "\(used)")
            #expect(used.stdout.contains("invalid"), "\(used)")
            #expect(used.stdout.contains("eit_nonce_not_found"), "\(used)")

            // Expired: exp an hour ago.
            let now = Int64(Date().timeIntervalSince1970)
            let expiredToken = try minter.mint(userID: "erin", nonce: try await server.nonce(), issuedAt: now - 3600, ttl: 120)
            let expired = try await validate(expiredToken)
            #expect(expired.exit == .exited(1), "\(expired)")
            #expect(expired.stdout.contains("eit_expired"), "\(expired)")

            // The server refuses the admin token: it could not be asked.
            let refused = try await validate(someToken, adminToken: "wrong-admin-token-0123456789")
            #expect(refused.exit == .exited(2), "\(refused)")

            let down = try await unreachable
            #expect(down.exit == .exited(2), "\(down)")
            #expect(down.stderr.contains("cannot reach"), "\(down)")
            try await server.child.stop()
        }
    }

    // MARK: - The harness itself

    @Test("a test that fails half-way leaves no process and no scratch directory behind")
    func harnessCleansUp() async throws {
        var pid: Int32 = 0
        var directory: URL?
        do {
            try await ProcessScratch.with { scratch in
                directory = scratch.directory
                let server = try await scratch.startServer()
                pid = server.child.pid
                throw ProcessHarnessError("a deliberate failure")
            }
            Issue.record("the body's error should have been rethrown")
        } catch let error as ProcessHarnessError {
            #expect(error.description == "a deliberate failure")
        }
        #expect(pid > 0)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "pid \(pid) should be gone")
        let scratchPath = try #require(directory).path
        #expect(!FileManager.default.fileExists(atPath: scratchPath))
    }

    // MARK: - Helpers

    private static func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require((attributes[.posixPermissions] as? NSNumber)?.intValue) & 0o777
    }

    private static func keyStatuses(_ server: ProcessServer, provider: String) async throws -> [String: String] {
        let keys = try await server.admin(.GET, "/admin/providers/\(provider)/keys", expect: 200)
        var statuses: [String: String] = [:]
        for key in try #require(keys.array, "a list: \(keys)") {
            #expect(key["private_key"].value == nil, "the key list never shows private parts")
            let id = ProcessHarness.bare(try #require(key["id"].string))
            let status = try #require(key["status"].string)
            statuses[id] = status
        }
        return statuses
    }

    private static func expectIdentityProviderError(
        _ response: ProcessHTTPResponse, status: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response)", sourceLocation: sourceLocation)
        #expect(response.json.keys == ["error", "status"], "\(response)", sourceLocation: sourceLocation)
        #expect(response.json["status"].int == status, "\(response)", sourceLocation: sourceLocation)
        #expect(response.json["error"].string?.isEmpty == false, "\(response)", sourceLocation: sourceLocation)
    }
}
