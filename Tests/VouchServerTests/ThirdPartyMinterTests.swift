import Foundation
import Testing
import VouchTestSupport
import _CryptoExtras

/// PROTOCOL §5.1: tokens minted by an implementation other than Vouch's (PyJWT), shaped the way
/// Layer's published sample backends shaped them, sign in unchanged. CI installs PyJWT; without it
/// the suite fails in CI and is skipped, saying why, elsewhere.
@Suite(
    "Tokens from Layer's sample backends (PyJWT)",
    .enabled(
        if: PyJWTMinter.available || PyJWTMinter.required,
        "python3 with PyJWT not available (pip install pyjwt cryptography); skipped"))
struct ThirdPartyMinterTests {
    struct Shape: Sendable, CustomTestStringConvertible {
        let name: String
        let typ: String
        let bareIDs: Bool
        var testDescription: String { name }
    }

    static let accepted: [Shape] = [
        Shape(name: "Python/Node/Java samples: typ JWS, bare UUID iss and kid", typ: "JWS", bareIDs: true),
        Shape(name: "typ JWS with layer:/// ids", typ: "JWS", bareIDs: false),
        Shape(name: "later guides: typ JWT, layer:/// ids", typ: "JWT", bareIDs: false),
        Shape(name: "typ JWT with bare ids", typ: "JWT", bareIDs: true),
        Shape(name: "typ in lower case", typ: "jws", bareIDs: true),
        Shape(name: "typ as a media type", typ: "application/jwt", bareIDs: false),
        Shape(name: "typ as a media type in mixed case", typ: "Application/JWS", bareIDs: true),
    ]

    @Test("accepted", arguments: accepted)
    func signsIn(shape: Shape) async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let token = try await PyJWTMinter.mint(
                fixture: fixture, typ: shape.typ, bareIDs: shape.bareIDs,
                nonce: try await server.nonce(), now: server.clock.now)
            let answer = try await fixture.signIn(token)
            #expect(answer.status == 201, "\(answer.text)")
        }
    }

    @Test(
        "other typ values are #7 eit_header_param_wrong_value naming typ",
        arguments: ["JOSE", "text/jwt", "application/", "JWT ", "application/jose+json", "ＪＷＳ"])
    func refused(typ: String) async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let token = try await PyJWTMinter.mint(
                fixture: fixture, typ: typ, bareIDs: true,
                nonce: try await server.nonce(), now: server.clock.now)
            let answer = try await fixture.signIn(token)
            #expect(answer.status == 422)
            #expect(answer.data["reason"] as? String == "eit_header_param_wrong_value", "\(answer.text)")
            #expect(answer.data["param"] as? String == "typ")
        }
    }
}

/// Runs scripts/mint_like_layer_samples.py.
enum PyJWTMinter {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = packageRoot.appendingPathComponent("scripts/mint_like_layer_samples.py")

    /// CI must run these tests: there a missing PyJWT is a failure, not a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["CI"] != nil }

    static let available: Bool = {
        guard let probe = try? ChildProcess(executable: "/usr/bin/env", arguments: ["python3", "-c", "import jwt, cryptography"]) else {
            return false
        }
        return probe.waitForExitBlocking() == .exited(0)
    }()

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    static func mint(fixture: Fixture, typ: String, bareIDs: Bool, nonce: String, now: Int64) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pyjwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("provider.pem")
        try Data(fixture.activeKey.privateKey.pemRepresentation.utf8).write(to: keyFile)

        let kid = bareIDs ? Fixture.bare(fixture.activeKey.id) : fixture.activeKey.id
        let issuer = bareIDs ? Fixture.bare(fixture.providerID) : fixture.providerID
        // `--name=value`: a base64url nonce may begin with `-`, which argparse would take for an option.
        let ran = try await ChildProcess.run(
            executable: "/usr/bin/env",
            arguments: [
                "python3", script.path, "--private-key=\(keyFile.path)", "--kid=\(kid)", "--iss=\(issuer)",
                "--prn=alice", "--nonce=\(nonce)", "--iat=\(now)", "--typ=\(typ)",
            ])
        let token = ran.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard ran.termination == .exited(0), !token.isEmpty else {
            throw Failed(description: "PyJWT minting failed (\(ran.termination)): \(ran.stderr)")
        }
        return token
    }
}
