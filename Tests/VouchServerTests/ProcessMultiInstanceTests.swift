import Foundation
import NIOHTTP1
import Testing
import VouchKeySourceTestSupport
import VouchProtocol
import VouchStorePostgres
import VouchPostgresTestSupport
import VouchTestSupport
import VouchTokens

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Two real `vouch serve` processes on one PostgreSQL database, as behind a load balancer: what
/// one instance does, the other sees at once, and every guarantee holds across them.
@Suite(
    "several vouch serve instances on one PostgreSQL database",
    .serialized,
    .enabled(if: ProcessHarness.binaryExists, ProcessHarness.missingBinaryMessage),
    .enabled(if: PostgresTestDatabase.isConfigured, "VOUCH_TEST_DATABASE_URL is not set"),
    .timeLimit(.minutes(5))
)
struct ProcessMultiInstanceTests {
    static let adminToken = "multi-instance-admin-token-0123456789abcdef"

    /// Runs `body` with instances A and B on one fresh database.
    static func withTwoInstances(
        extra: [String] = [],
        _ body: (ProcessScratch, ProcessServer, ProcessServer, PostgresDatabaseURL) async throws -> Void
    ) async throws {
        try await PostgresTestDatabase.with { url in
            try await ProcessScratch.with { scratch in
                // A deadline generous for a loaded machine; outages are tested on their own.
                let arguments = ["--database", url.unredactedString, "--database-timeout", "60"] + extra
                let a = try await scratch.startServer(dataDir: "a", arguments: arguments, adminToken: adminToken)
                let b = try await scratch.startServer(dataDir: "b", arguments: arguments, adminToken: adminToken)
                for dataDir in ["a", "b"] {
                    let file = scratch.url(dataDir).appendingPathComponent("vouch.sqlite").path
                    #expect(!FileManager.default.fileExists(atPath: file), "a server on PostgreSQL leaves no SQLite file")
                }
                try await body(scratch, a, b, url)
                for server in [a, b] where server.child.isRunning { try await server.child.stop() }
            }
        }
    }

    @Test("a PostgreSQL URL's password is in no output, also when the server cannot be reached")
    func passwordNeverPrinted() async throws {
        try await ProcessScratch.with { scratch in
            let port = try await ProcessHarness.unusedPort()
            let url = "postgres://vouch:secret-password-42@127.0.0.1:\(port)/vouch?sslmode=disable"
            let result = try await scratch.run([
                "serve", "--port", "0", "--data-dir", scratch.url("d").path,
                "--database", url, "--database-timeout", "1",
            ])
            #expect(result.exit != .exited(0), "\(result)")
            #expect(result.stderr.contains("postgres://vouch:***@127.0.0.1:\(port)/vouch"), "\(result)")
            #expect(!result.stdout.contains("secret-password-42") && !result.stderr.contains("secret-password-42"), "\(result)")
        }
    }

    @Test("one nonce from A, its sign-in raced 16 times through A and B: exactly one 201")
    func nonceRacedThroughBoth() async throws {
        try await Self.withTwoInstances { _, a, b, _ in
            let (app, provider) = try await a.makeAppAndProvider()
            let (key, pem) = try await a.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
            let nonce = try await a.nonce()
            let tokens = try (0..<16).map { try minter.mint(userID: "racer-\($0)", nonce: nonce) }
            let statuses = try await withThrowingTaskGroup(of: ProcessHTTPResponse.self) { group in
                for (index, token) in tokens.enumerated() {
                    let server = index % 2 == 0 ? a : b
                    group.addTask { try await server.signIn(token, app: app) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.status == 201 }.count == 1, "\(statuses.map(\.status))")
            let refused = statuses.filter { $0.status != 201 }
            #expect(
                refused.allSatisfy { $0.status == 422 && $0.json["data"]["reason"].string == "eit_nonce_not_found" },
                "\(refused.prefix(3))")
        }
    }

    @Test("a session made on A works on B; revoked on B, A answers 401 at once")
    func sessionAcrossInstances() async throws {
        try await Self.withTwoInstances { _, a, b, _ in
            let (app, provider) = try await a.makeAppAndProvider()
            let (key, pem) = try await a.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
            // A nonce from B, used on A: the nonce secret is shared through the database.
            let signIn = try await a.signIn(try minter.mint(userID: "alice", nonce: try await b.nonce()), app: app)
            try #require(signIn.status == 201, "\(signIn)")
            let session = try #require(signIn.json["session_token"].string)

            let onB = try await b.me(session)
            #expect(onB.status == 200, "\(onB)")
            #expect(onB.json["user"]["user_id"].string == "alice")

            let revoked = try await b.request(.DELETE, "/sessions/\(session)")
            #expect(revoked.status == 204, "\(revoked)")
            let onA = try await a.me(session)
            #expect(onA.status == 401, "\(onA)")
            #expect(onA.header("WWW-Authenticate") != nil, "a 401 carries the challenge: \(onA)")

            // Suspension on A ends a session made on B, at once.
            let second = try await b.signIn(try minter.mint(userID: "bob", nonce: try await a.nonce()), app: app)
            let bobSession = try #require(second.json["session_token"].string)
            try await a.admin(.PATCH, "/admin/apps/\(app)/users/bob", json: ["suspended": true], expect: 200)
            let bobOnB = try await b.me(bobSession)
            #expect(bobOnB.status == 401)
            #expect(bobOnB.json["data"]["reason"].string == "user_suspended", "\(bobOnB)")
        }
    }

    /// An app and a provider whose keys come from `jwks`, bound together, made through `server`:
    /// the bare app id and the provider's `layer:///` id.
    static func appWithKeySource(on server: ProcessServer, jwks: JWKSServer) async throws -> (app: String, provider: String) {
        let app = try await server.admin(.POST, "/admin/apps", json: ["name": "keys"], expect: 201)
        let provider = try await server.admin(
            .POST, "/admin/providers", json: ["name": "fetched", "jwks_uri": jwks.url("/jwks.json")], expect: 201)
        let appID = ProcessHarness.bare(try #require(app["id"].string))
        let providerID = try #require(provider["id"].string)
        try await server.admin(.PUT, "/admin/providers/\(ProcessHarness.bare(providerID))/apps/\(appID)", expect: 204)
        return (appID, providerID)
    }

    @Test("a provider's fetched keys are shared: B signs in with A's fetch, and a key A fetched after a rotation is B's too")
    func sharedKeySource() async throws {
        try await JWKSServer.run { jwks in
            try await Self.withTwoInstances(extra: ["--allow-loopback-outbound"]) { _, a, b, _ in
                let first = try PublishedKey.rsa("shared-1", index: 0)
                let second = try PublishedKey.rsa("shared-2", index: 1)
                jwks.publish([first])
                let (appID, providerID) = try await Self.appWithKeySource(on: a, jwks: jwks)
                func token(_ key: PublishedKey, nonce: String) throws -> String {
                    let now = Int64(Date().timeIntervalSince1970)
                    return try key.sign(
                        header: ["typ": "JWT", "alg": "RS256", "cty": "layer-eit;v=1", "kid": key.kid],
                        claims: ["iss": providerID, "prn": "alice", "iat": now, "exp": now + 120, "nce": nonce])
                }

                #expect(try await a.signIn(try token(first, nonce: try await a.nonce()), app: appID).status == 201)
                #expect(try await b.signIn(try token(first, nonce: try await b.nonce()), app: appID).status == 201)
                #expect(jwks.requests("/jwks.json") == 1, "B used the set A fetched")

                // The provider rotates; an operator has A fetch now (after the 10 s turn), and B
                // verifies the new key from the shared set without fetching it itself.
                jwks.publish([first, second])
                try await Task.sleep(for: .seconds(11))
                let refreshed = try await a.admin(.POST, "/admin/providers/\(ProcessHarness.bare(providerID))/key-source/refresh", expect: 200)
                #expect(refreshed["keys"].array?.count == 2, "\(refreshed)")
                let onB = try await b.signIn(try token(second, nonce: try await b.nonce()), app: appID)
                #expect(onB.status == 201, "\(onB)")
                #expect(jwks.requests("/jwks.json") == 2)
            }
        }
    }

    @Test("first sign-ins on both instances at once: the one that loses the turn to fetch waits for the other's fetch")
    func keySourceFetchInFlightIsAwaited() async throws {
        try await JWKSServer.run { jwks in
            try await Self.withTwoInstances(extra: ["--allow-loopback-outbound"]) { _, a, b, _ in
                let key = try PublishedKey.rsa("slow-1", index: 2)
                jwks.publish([key])
                // Slow enough that the second sign-in arrives while the first one's fetch is out.
                jwks.setMode(.slow(.seconds(2)))
                let (appID, providerID) = try await Self.appWithKeySource(on: a, jwks: jwks)
                let now = Int64(Date().timeIntervalSince1970)
                func token(_ nonce: String, user: String) throws -> String {
                    try key.sign(
                        header: ["typ": "JWT", "alg": "RS256", "cty": "layer-eit;v=1", "kid": key.kid],
                        claims: ["iss": providerID, "prn": user, "iat": now, "exp": now + 120, "nce": nonce])
                }
                let onA = try token(try await a.nonce(), user: "alice")
                let onB = try token(try await b.nonce(), user: "bob")
                async let first = a.signIn(onA, app: appID)
                try await Task.sleep(for: .milliseconds(300))
                async let second = b.signIn(onB, app: appID)
                let (answerA, answerB) = try await (first, second)
                #expect(answerA.status == 201, "\(answerA)")
                #expect(answerB.status == 201, "\(answerB)")
                #expect(jwks.requests("/jwks.json") == 1, "one fetch, awaited by the other instance")
            }
        }
    }

    @Test("a key disabled on A is refused on B (eit_key_disabled) at once; app settings changed on B are read by A")
    func noStaleCaches() async throws {
        try await Self.withTwoInstances { _, a, b, _ in
            let (app, provider) = try await a.makeAppAndProvider()
            let (key, pem) = try await a.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)
            let before = try await b.signIn(try minter.mint(userID: "carol", nonce: try await b.nonce()), app: app)
            #expect(before.status == 201, "\(before)")

            try await a.admin(.PATCH, "/admin/keys/\(key)", json: ["status": "disabled"], expect: 200)
            let after = try await b.signIn(try minter.mint(userID: "carol", nonce: try await b.nonce()), app: app)
            #expect(after.status == 422)
            #expect(after.json["data"]["reason"].string == "eit_key_disabled", "\(after)")

            try await b.admin(.PATCH, "/admin/apps/\(app)", json: ["name": "renamed on B"], expect: 200)
            let seen = try await a.admin(.GET, "/admin/apps/\(app)", expect: 200)
            #expect(seen["name"].string == "renamed on B")

            // Deleted on B: A's attempt to enable the tombstone is a conflict, not a resurrection.
            try await b.admin(.DELETE, "/admin/keys/\(key)", expect: 204)
            let revived = try await a.admin(.PATCH, "/admin/keys/\(key)", json: ["status": "active"])
            #expect(revived.status == 409, "\(revived)")
        }
    }

    @Test("concurrent PATCHes of an app's name on A and TTL on B both stay; PATCH racing DELETE never revives a key")
    func adminRacesAcrossInstances() async throws {
        try await Self.withTwoInstances { _, a, b, _ in
            let (app, provider) = try await a.makeAppAndProvider()
            for round in 0..<8 {
                async let name = a.admin(.PATCH, "/admin/apps/\(app)", json: ["name": "name \(round)"])
                async let ttl = b.admin(.PATCH, "/admin/apps/\(app)", json: ["session_ttl_seconds": 600 + round])
                let (named, timed) = try await (name, ttl)
                #expect(named.status == 200 && timed.status == 200, "\(named) \(timed)")
                let seen = try await a.admin(.GET, "/admin/apps/\(app)", expect: 200)
                #expect(seen["name"].string == "name \(round)", "round \(round): \(seen)")
                #expect(seen["session_ttl_seconds"].int == 600 + round, "round \(round): \(seen)")
            }
            for round in 0..<6 {
                let (key, _) = try await a.generateKey(provider: provider)
                async let enable = a.admin(.PATCH, "/admin/keys/\(key)", json: ["status": round % 2 == 0 ? "active" : "disabled"])
                async let delete = b.admin(.DELETE, "/admin/keys/\(key)")
                let (patched, deleted) = try await (enable, delete)
                #expect(deleted.status == 204, "\(deleted)")
                #expect(patched.status == 200 || patched.status == 409, "\(patched)")
                let seen = try await a.admin(.GET, "/admin/keys/\(key)", expect: 200)
                #expect(seen["status"].string == "deleted", "round \(round): a deleted key came back: \(seen)")
            }
        }
    }

    @Test("kill -9 of A during a burst of sign-ins over A and B: every session answered 201 works on B")
    func killDuringBurst() async throws {
        try await Self.withTwoInstances(extra: ["--rate-limit", "0"]) { _, a, b, _ in
            let (app, provider) = try await a.makeAppAndProvider()
            let (key, pem) = try await a.generateKey(provider: provider)
            let minter = try ProcessMint.minter(privateKeyPEM: pem, provider: provider, key: key)

            let result = try await ProcessBurst.signIns(
                total: 160, killAfter: 50, width: 12, through: [a, b], app: app, minter: minter,
                stopAfterKill: false
            ) { a.child.killNow() }
            let exit = try await a.child.waitForExit(timeout: .seconds(10))
            #expect(exit == .signalled(SIGKILL), "A should have been killed part-way: \(exit)")
            #expect(result.unexpectedStatuses.isEmpty, "only 201s were expected: \(result.unexpectedStatuses)")
            try #require(result.sessions.count >= 50)

            var lost: [String] = []
            for (session, user) in result.sessions {
                let me = try await b.me(session)
                if me.status != 200 || me.json["user"]["user_id"].string != user { lost.append("\(user): \(me.status)") }
            }
            #expect(lost.isEmpty, "\(lost.count) of \(result.sessions.count) acknowledged sessions are lost: \(lost.prefix(5))")
        }
    }
}
