import Foundation
import Testing
import VouchProtocol
import VouchTestSupport
import VouchTokens

// MARK: - Running processes

enum CLI {
    static let packageRoot = TestPackage.root
    static let binary = TestPackage.vouchBinary
    static let script = packageRoot.appendingPathComponent("scripts/verify_token.py")
    /// The test vectors vendored beside the token tests (Tests/VouchTokensTests/Vectors).
    static let vectors = packageRoot.appendingPathComponent("Tests/VouchTokensTests/Vectors")

    static var binaryExists: Bool { TestPackage.vouchBinaryExists }
    static let binaryMissing = TestPackage.missingBinaryMessage

    static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// CI must run every suite: there a missing tool is a failure, not a skip.
    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    /// Whether `python3 -c "import jwt"` works (CI installs pyjwt).
    static let pythonHasJWT: Bool = {
        guard let probe = try? ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", "import jwt"]) else {
            return false
        }
        return probe.waitForExitBlocking() == .exited(0)
    }()

    struct Result: CustomStringConvertible {
        var status: Int32
        /// True when the process died of a signal (a crash), not by exiting.
        var signaled: Bool
        var stdout: String
        var stderr: String

        var output: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
        var succeeded: Bool { !signaled && status == 0 }
        var description: String { "status \(status)\(signaled ? " (signal)" : ""), stdout: \(stdout.prefix(400)), stderr: \(stderr.prefix(400))" }
    }

    /// Runs a program to its end (with `posix_spawn`: see `ChildProcess`), its output in files.
    static func run(_ executable: URL, _ arguments: [String], stdin: String? = nil, in directory: URL? = nil) async throws -> Result {
        let ran = try await ChildProcess.run(
            executable: executable.path, arguments: arguments, directory: directory?.path,
            standardInput: stdin)
        let (status, signaled): (Int32, Bool) =
            switch ran.termination {
            case .exited(let status): (status, false)
            case .signalled(let signal): (signal, true)
            }
        return Result(status: status, signaled: signaled, stdout: ran.stdout, stderr: ran.stderr)
    }

    static func vouch(_ arguments: [String], stdin: String? = nil, in directory: URL? = nil) async throws -> Result {
        try await run(binary, arguments, stdin: stdin, in: directory)
    }

    static func python(_ arguments: [String]) async throws -> Result {
        try await run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path] + arguments, in: packageRoot)
    }

    /// A fresh temporary directory, removed by `cleanup`.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func jsonObject(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }
}

// MARK: - The world the minted tokens are verified in

struct CLIContext: VerificationFactsProvider {
    var keys: [UUID: LayerVerificationKey] = [:]
    var bindings: [UUID: Set<UUID>] = [:]
    var nonces: Set<String> = []
    var secrets: [UUID: RegistrationSecret] = [:]

    func facts(for plan: TokenPlan, now: Int64) async throws -> VerificationFacts {
        VerificationFacts(
            layerKey: plan.keyID.flatMap { keys[$0] },
            providerBinding: plan.providerID.map { bindings[$0].map { $0.contains(plan.appID) ? .bound : .notBound } ?? .unknownProvider },
            serverNonce: plan.serverNonce.map { nonces.contains($0) ? .usable : .unknown },
            registrationSecret: plan.applicationKey.flatMap { secrets[$0] },
            registrationNonceSeen: plan.registrationNonce.map { _ in false },
            userSuspended: plan.userID.map { _ in false })
    }
}

enum Fixture {
    static let appID = UUID(uuidString: "11111111-2222-4333-8444-555555555555")!
    static let providerID = UUID(uuidString: "6a1f0e9c-3b2d-4c5e-9f8a-7b6c5d4e3f21")!
    static let keyID = UUID(uuidString: "d4c3b2a1-0f9e-4d8c-b7a6-958473625140")!
    static let applicationKey = "a32e5a8d-f7d8-411c-9645-9038e8dd051d"
    static let applicationSecret = "ax8hTTQJF0OPXL32r1LHMA=="
    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// `keys generate` into a fresh directory; returns the directory.
    static func generateKeys() async throws -> URL {
        let directory = try CLI.temporaryDirectory()
        let result = try await CLI.vouch(["keys", "generate", "--out", directory.path])
        try #require(result.succeeded, "\(result)")
        return directory
    }

    static func mintArguments(keyDirectory: URL, userID: String = "alice", nonce: String = "nonce-1") -> [String] {
        [
            "token", "mint", "--provider-id", LayerID.provider(providerID), "--key-id", keyID.uuidString,
            "--private-key", keyDirectory.appendingPathComponent("private.pem").path, "--user-id", userID, "--nonce=\(nonce)",
        ]
    }

    static func layerContext(publicKeyPEM: String, nonce: String) throws -> CLIContext {
        let info = try PublicKeyInfo(pem: publicKeyPEM)
        var context = CLIContext()
        context.keys[keyID] = LayerVerificationKey(id: keyID, providerID: providerID, status: .active, publicKey: info.key)
        context.bindings[providerID] = [appID]
        context.nonces = [nonce]
        return context
    }

    static func sinchContext() throws -> CLIContext {
        var context = CLIContext()
        let key = try #require(UUID(uuidString: applicationKey))
        context.secrets[key] = RegistrationSecret(
            applicationKey: key, appID: appID,
            secret: Array(try #require(Data(base64Encoded: applicationSecret))))
        return context
    }
}

// MARK: - Tests

@Suite("vouch CLI", .enabled(if: CLI.binaryExists, "\(CLI.binaryMissing)"))
struct CLITests {
    @Test("keys generate, then token mint: the token verifies against the generated public key")
    func generateAndMint() async throws {
        let directory = try await Fixture.generateKeys()
        defer { try? FileManager.default.removeItem(at: directory) }
        let privateURL = directory.appendingPathComponent("private.pem")
        let publicURL = directory.appendingPathComponent("public.pem")
        let privatePEM = try String(contentsOf: privateURL, encoding: .utf8)
        let publicPEM = try String(contentsOf: publicURL, encoding: .utf8)
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let mode = try FileManager.default.attributesOfItem(atPath: privateURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "private.pem must be readable by its owner only")
        #expect(try RSAKeyPair.privateKey(pem: privatePEM).keySizeInBits == 2048)
        #expect(try RSAKeyPair.privateKey(pem: privatePEM).publicKey.derRepresentation == PublicKeyInfo(pem: publicPEM).key.derRepresentation)

        let nonce = "cli-nonce-\(UUID().uuidString)"
        let minted = try await CLI.vouch(Fixture.mintArguments(keyDirectory: directory, nonce: nonce) + ["--display-name", "Alice A."])
        try #require(minted.succeeded, "\(minted)")
        let token = minted.output
        #expect(JWS3.count(token) == 3)
        let context = try Fixture.layerContext(publicKeyPEM: publicPEM, nonce: nonce)
        let verified = try await TokenVerifier().verify(token, appID: Fixture.appID, facts: context, now: Fixture.now)
        #expect(verified.userID == "alice")
        #expect(verified.nonce == nonce)
        #expect(verified.providerID == Fixture.providerID)
        #expect(verified.keyID == Fixture.keyID)
        #expect(verified.expiresAt - verified.issuedAt == 120)
        #expect(abs(verified.issuedAt - Fixture.now) < 120)
        #expect(verified.identity.displayName == "Alice A.")

        // Another key's public half does not verify it.
        let other = try RSAKeyPair.generate()
        let wrong = try Fixture.layerContext(publicKeyPEM: other.publicKeyPEM, nonce: nonce)
        await #expect(throws: TokenRejection(.signatureVerificationFailed)) {
            try await TokenVerifier().verify(token, appID: Fixture.appID, facts: wrong, now: Fixture.now)
        }
    }

    @Test("keys generate prints the public key's fingerprint, and refuses to overwrite without --force")
    func generateRefusesOverwrite() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await CLI.vouch(["keys", "generate", "--out", directory.path])
        try #require(first.succeeded, "\(first)")
        let publicURL = directory.appendingPathComponent("public.pem")
        let publicPEM = try String(contentsOf: publicURL, encoding: .utf8)
        #expect(first.stdout.contains(try PublicKeyInfo(pem: publicPEM).fingerprint))

        let second = try await CLI.vouch(["keys", "generate", "--out", directory.path])
        #expect(!second.succeeded)
        #expect(!second.signaled)
        #expect(second.stderr.contains("--force"), "\(second)")
        #expect(try String(contentsOf: publicURL, encoding: .utf8) == publicPEM, "the existing key must be left alone")

        let forced = try await CLI.vouch(["keys", "generate", "--out", directory.path, "--force"])
        #expect(forced.succeeded, "\(forced)")
        #expect(try String(contentsOf: publicURL, encoding: .utf8) != publicPEM)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("private.pem").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("--json outputs parse as JSON with the documented members")
    func jsonOutputs() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = try await CLI.vouch(["keys", "generate", "--out", directory.path, "--json"])
        try #require(keys.succeeded, "\(keys)")
        let keysJSON = try CLI.jsonObject(keys.stdout)
        let publicPEM = try String(contentsOf: directory.appendingPathComponent("public.pem"), encoding: .utf8)
        #expect(keysJSON["fingerprint"] as? String == (try PublicKeyInfo(pem: publicPEM)).fingerprint)
        #expect((keysJSON["private_key_file"] as? String)?.hasSuffix("private.pem") == true)
        #expect((keysJSON["public_key_file"] as? String)?.hasSuffix("public.pem") == true)

        let mint = try await CLI.vouch(Fixture.mintArguments(keyDirectory: directory) + ["--json"])
        try #require(mint.succeeded, "\(mint)")
        let token = try #require(try CLI.jsonObject(mint.stdout)["identity_token"] as? String)
        #expect(JWS3.count(token) == 3)

        // One base64url nonce in 64 begins with `-`; it is still the value of `--nonce`.
        let dashed = try await CLI.vouch(Array(Fixture.mintArguments(keyDirectory: directory).dropLast()) + ["--nonce", "-xyz", "--json"])
        try #require(dashed.succeeded, "\(dashed)")
        let dashedToken = try #require(try CLI.jsonObject(dashed.stdout)["identity_token"] as? String)
        #expect(try TokenInspector.inspect(dashedToken).claims["nce"] == "-xyz")

        let registration = try await CLI.vouch([
            "token", "mint-registration", "--application-key", Fixture.applicationKey,
            "--application-secret", Fixture.applicationSecret, "--user-id", "bob", "--json",
        ])
        try #require(registration.succeeded, "\(registration)")
        let registrationToken = try #require(try CLI.jsonObject(registration.stdout)["registration_token"] as? String)
        let verified = try await TokenVerifier().verify(
            registrationToken, appID: Fixture.appID, facts: try Fixture.sinchContext(),
            now: Fixture.now)
        #expect(verified.userID == "bob")
        #expect(verified.expiresAt - verified.issuedAt == 600)

        let inspect = try await CLI.vouch(["token", "inspect", token, "--json"])
        try #require(inspect.succeeded, "\(inspect)")
        let inspected = try CLI.jsonObject(inspect.stdout)
        #expect(inspected["profile"] as? String == "layer")
        #expect(inspected["signature_bytes"] as? Int == 256)
        let header = try #require(inspected["header"] as? [String: Any])
        #expect(header["cty"] as? String == "layer-eit;v=1")
        #expect(header["kid"] as? String == LayerID.key(Fixture.keyID))
        let claims = try #require(inspected["claims"] as? [String: Any])
        #expect(claims["prn"] as? String == "alice")
        #expect(claims["nce"] as? String == "nonce-1")
        #expect(claims["iss"] as? String == LayerID.provider(Fixture.providerID))
    }

    @Test("token mint-registration reproduces Sinch's reference token byte for byte")
    func mintRegistrationReference() async throws {
        let data = try Data(contentsOf: CLI.vectors.appendingPathComponent("sinch-reference.json"))
        let reference = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let inputs = try #require(reference["inputs"] as? [String: Any])
        let expected = try #require((reference["tokens"] as? [String: Any])?["sorted_keys_no_typ"] as? String)
        let result = try await CLI.vouch([
            "token", "mint-registration",
            "--application-key", try #require(inputs["application_key"] as? String),
            "--application-secret", try #require(inputs["application_secret"] as? String),
            "--user-id", try #require(inputs["user_id"] as? String),
            "--issued-at", String(try #require(inputs["iat"] as? Int)),
            "--nonce", try #require(inputs["nonce"] as? String),
            "--ttl", "600",
        ])
        try #require(result.succeeded, "\(result)")
        #expect(result.stdout == expected + "\n")
    }

    @Test("token inspect prints the header and claims (argument or standard input)")
    func inspectPrintsClaims() async throws {
        let token = try SinchTokenMinter(applicationKey: Fixture.applicationKey, applicationSecret: Fixture.applicationSecret)
            .mint(userID: "carol", nonce: "n-42", issuedAt: 1_514_862_245, ttl: 600)
        for (arguments, stdin) in [(["token", "inspect", token], nil as String?), (["token", "inspect", "-"], "  " + token + "\n")] {
            let result = try await CLI.vouch(arguments, stdin: stdin)
            try #require(result.succeeded, "\(result)")
            #expect(result.stdout.contains("profile: sinch (not verified)"))
            #expect(result.stdout.contains(#""sub" : "//rtc.sinch.com/applications/\#(Fixture.applicationKey)/users/carol""#), "\(result.stdout)")
            #expect(result.stdout.contains(#""nonce" : "n-42""#))
            #expect(result.stdout.contains(#""kid" : "hkdfv1-20180102""#))
            #expect(result.stdout.contains("iat: 2018-01-02T03:04:05Z"))
            #expect(result.stdout.contains("exp: 2018-01-02T03:14:05Z"))
            #expect(result.stdout.contains("signature: 32 bytes"))
        }
        let garbage = try await CLI.vouch(["token", "inspect", "not.a.token"])
        #expect(!garbage.succeeded && !garbage.signaled)
        #expect(garbage.stderr.contains("eit_"), "\(garbage)")
    }

    @Test("errors: non-zero exit and a message on stderr")
    func errors() async throws {
        let directory = try await Fixture.generateKeys()
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbagePEM = directory.appendingPathComponent("garbage.pem")
        try Data("-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n".utf8).write(to: garbagePEM)
        let base = Fixture.mintArguments(keyDirectory: directory)
        func replacing(_ option: String, with value: String) -> [String] {
            var copy = base
            let index = copy.firstIndex(of: option)!
            copy[index + 1] = value
            return copy
        }
        let cases: [(String, [String], String)] = [
            ("missing key file", replacing("--private-key", with: directory.appendingPathComponent("nope.pem").path), "nope.pem"),
            ("garbage PEM", replacing("--private-key", with: garbagePEM.path), "private key"),
            ("public key instead of private", replacing("--private-key", with: directory.appendingPathComponent("public.pem").path), "private key"),
            ("bad provider id", replacing("--provider-id", with: "layer:///providers/nope"), "--provider-id"),
            ("bad key id", replacing("--key-id", with: "key-1"), "--key-id"),
            ("empty user id", replacing("--user-id", with: ""), "user id"),
            ("over-long user id", replacing("--user-id", with: String(repeating: "u", count: 256)), "user id"),
            ("TTL too long", base + ["--ttl", "86401"], "TTL"),
            (
                "bad registration user id",
                [
                    "token", "mint-registration", "--application-key", Fixture.applicationKey,
                    "--application-secret", Fixture.applicationSecret, "--user-id", "no spaces",
                ], "user id"
            ),
            (
                "bad application secret",
                [
                    "token", "mint-registration", "--application-key", Fixture.applicationKey,
                    "--application-secret", "short", "--user-id", "bob",
                ], "secret"
            ),
            ("missing option", ["token", "mint", "--user-id", "alice"], "--provider-id"),
            ("serve: port out of range", ["serve", "--port", "70000"], "--port must be 0…65535"),
            ("serve: session cache out of range", ["serve", "--session-cache=-1"], "--session-cache must be 0…1000000"),
            (
                "serve: group commit wait out of range", ["serve", "--group-commit-wait", "10001"],
                "--group-commit-wait must be 0…10000 microseconds"
            ),
            ("serve: audit retention out of range", ["serve", "--audit-retention-days", "0"], "--audit-retention-days must be 1…3650 days"),
            ("serve: database timeout out of range", ["serve", "--database-timeout", "301"], "--database-timeout must be 1…300 seconds"),
            ("unknown subcommand", ["token", "frobnicate"], "frobnicate"),
        ]
        for (name, caseArguments, fragment) in cases {
            let result = try await CLI.vouch(caseArguments)
            #expect(!result.succeeded, "\(name): \(result)")
            #expect(!result.signaled, "\(name) crashed: \(result)")
            #expect(result.stdout.isEmpty, "\(name): nothing on stdout, got \(result.stdout)")
            #expect(result.stderr.contains(fragment), "\(name): stderr should mention \(fragment): \(result.stderr)")
        }
    }

    @Test("a 1024-bit private key is refused", .enabled(if: CLI.openssl != nil, "openssl not found; skipped"))
    func smallKeyRefused() async throws {
        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let small = directory.appendingPathComponent("private.pem")
        let generated = try await CLI.run(URL(fileURLWithPath: try #require(CLI.openssl)), ["genrsa", "-out", small.path, "1024"])
        try #require(generated.succeeded, "\(generated)")
        let result = try await CLI.vouch(Fixture.mintArguments(keyDirectory: directory))
        #expect(!result.succeeded && !result.signaled, "\(result)")
        #expect(result.stderr.contains("1024"), "\(result)")
        #expect(result.stderr.contains("2048"), "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test("an extreme --issued-at is an error message, not a crash", arguments: ["9223372036854775807", "-9223372036854775808", "-1"])
    func extremeIssuedAt(issuedAt: String) async throws {
        let result = try await CLI.vouch([
            "token", "mint-registration", "--application-key", Fixture.applicationKey,
            "--application-secret", Fixture.applicationSecret, "--user-id", "bob",
            "--issued-at=" + issuedAt,
        ])
        #expect(!result.signaled, "vouch crashed: \(result)")
        #expect(!result.succeeded, "a token the server must refuse (iat \(issuedAt)) was minted: \(result.stdout)")
        #expect(!result.stderr.isEmpty)
    }

    @Test("an out-of-range --group-commit-wait is refused before anything starts", arguments: ["-1", "10001", "x"])
    func groupCommitWaitRange(value: String) async throws {
        let result = try await CLI.vouch(["serve", "--port", "0", "--data-dir", "/nonexistent/never-created", "--group-commit-wait=" + value])
        #expect(!result.signaled && !result.succeeded, "\(result)")
        #expect(result.stderr.contains("group-commit-wait"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/never-created"))
    }

    @Test("an out-of-range --session-cache is refused before anything starts", arguments: ["-1", "1000001", "x"])
    func sessionCacheRange(value: String) async throws {
        let result = try await CLI.vouch(["serve", "--port", "0", "--data-dir", "/nonexistent/never-created", "--session-cache=" + value])
        #expect(!result.signaled && !result.succeeded, "\(result)")
        #expect(result.stderr.contains("session-cache"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/never-created"))
    }

    @Test(
        "identity-provider takes an uploaded key or --publish-keys, one of the two",
        arguments: [
            (["--provider-id", "layer:///providers/\(UUID().uuidString)"], "--publish-keys"),
            (["--provider-id", "layer:///providers/\(UUID().uuidString)", "--key-id", UUID().uuidString], "--publish-keys"),
            (["--provider-id", "layer:///providers/\(UUID().uuidString)", "--publish-keys", "--private-key", "key.pem"], "leave out"),
            (["--provider-id", "not-a-provider", "--publish-keys", "--port", "0"], "--provider-id"),
        ])
    func identityProviderSigning(arguments: [String], fragment: String) async throws {
        let result = try await CLI.vouch(["identity-provider"] + arguments)
        #expect(!result.signaled && !result.succeeded, "\(result)")
        #expect(result.stderr.contains(fragment), "\(result.stderr)")
    }

    @Test(
        "--help of every command exits 0",
        arguments: [
            [], ["serve"], ["identity-provider"], ["keys"], ["keys", "generate"], ["token"], ["token", "mint"],
            ["token", "mint-registration"], ["token", "inspect"], ["token", "validate"],
        ])
    func help(command: [String]) async throws {
        let result = try await CLI.vouch(command + ["--help"])
        #expect(result.succeeded, "\(command): \(result)")
        #expect(result.stdout.contains("USAGE"), "\(command): \(result.stdout)")
        #expect(result.stdout.contains("vouch"))
    }
}

@Suite(
    "vouch CLI against PyJWT", .enabled(if: CLI.binaryExists, "\(CLI.binaryMissing)"),
    .enabled(if: CLI.pythonHasJWT || CLI.inCI, "python3 with PyJWT not available (pip install pyjwt); skipped"))
struct IndependentVerificationTests {
    @Test("a Layer token from `vouch token mint` verifies with PyJWT, with the expected claims")
    func layerWithPyJWT() async throws {
        let directory = try await Fixture.generateKeys()
        defer { try? FileManager.default.removeItem(at: directory) }
        let publicKey = directory.appendingPathComponent("public.pem").path
        let minted = try await CLI.vouch(
            Fixture.mintArguments(keyDirectory: directory, userID: "ünïcode user", nonce: "py-nonce")
                + ["--ttl", "300", "--first-name", "Zoë", "--avatar-url", "https://example.com/a/b.png"])
        try #require(minted.succeeded, "\(minted)")
        let result = try await CLI.python(["layer", "--public-key", publicKey, minted.output])
        try #require(result.succeeded, "\(result)")
        let claims = try CLI.jsonObject(result.stdout)
        #expect(claims["prn"] as? String == "ünïcode user")
        #expect(claims["nce"] as? String == "py-nonce")
        #expect(claims["iss"] as? String == LayerID.provider(Fixture.providerID))
        #expect(claims["first_name"] as? String == "Zoë")
        #expect(claims["avatar_url"] as? String == "https://example.com/a/b.png")
        let iat = try #require(claims["iat"] as? Int)
        #expect(claims["exp"] as? Int == iat + 300)
        #expect(abs(Int64(iat) - Fixture.now) < 120)

        // The script is no rubber stamp: another key, or a tampered token, fails.
        let other = try await Fixture.generateKeys()
        defer { try? FileManager.default.removeItem(at: other) }
        let wrongKey = try await CLI.python(["layer", "--public-key", other.appendingPathComponent("public.pem").path, minted.output])
        #expect(wrongKey.status == 1, "\(wrongKey)")
        let tail = minted.output.hasSuffix("AA") ? "BA" : "AA"
        let tampered = try await CLI.python(["layer", "--public-key", publicKey, String(minted.output.dropLast(2)) + tail])
        #expect(tampered.status == 1, "\(tampered)")
    }

    @Test("a Sinch token from `vouch token mint-registration` verifies with PyJWT")
    func sinchWithPyJWT() async throws {
        let minted = try await CLI.vouch([
            "token", "mint-registration", "--application-key", Fixture.applicationKey,
            "--application-secret", Fixture.applicationSecret, "--user-id", "user_7", "--ttl", "120",
        ])
        try #require(minted.succeeded, "\(minted)")
        let result = try await CLI.python(["sinch", "--application-secret", Fixture.applicationSecret, minted.output])
        try #require(result.succeeded, "\(result)")
        let claims = try CLI.jsonObject(result.stdout)
        let issuer = "//rtc.sinch.com/applications/" + Fixture.applicationKey
        #expect(claims["iss"] as? String == issuer)
        #expect(claims["sub"] as? String == issuer + "/users/user_7")
        let iat = try #require(claims["iat"] as? Int)
        #expect(claims["exp"] as? Int == iat + 120)
        let nonce = try #require(claims["nonce"] as? String)
        #expect(UUID(uuidString: nonce) != nil, "the CLI makes a UUID nonce")

        let wrongSecret = try await CLI.python(["sinch", "--application-secret", "AAAAAAAAAAAAAAAAAAAAAA==", minted.output])
        #expect(wrongSecret.status == 1, "\(wrongSecret)")
    }

    @Test("Sinch's reference token verifies with PyJWT too (clock checks off)")
    func referenceWithPyJWT() async throws {
        let data = try Data(contentsOf: CLI.vectors.appendingPathComponent("sinch-reference.json"))
        let reference = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let tokens = try #require(reference["tokens"] as? [String: String])
        for (name, token) in tokens {
            let result = try await CLI.python(["sinch", "--application-secret", Fixture.applicationSecret, "--ignore-expiry", token])
            #expect(result.succeeded, "\(name): \(result)")
            #expect((try? CLI.jsonObject(result.stdout))?["nonce"] as? String == "6b438bda-2d5c-4e8c-92b0-39f20a94b34e")
        }
    }
}

enum JWS3 {
    static func count(_ token: String) -> Int { token.split(separator: ".", omittingEmptySubsequences: false).count }
}
