import Crypto
import Foundation
import VouchProtocol
import VouchTokens
import _CryptoExtras

/// The measurement behind the access token's algorithm (docs/PERFORMANCE.md, "Access tokens"):
/// RS256, ES256 and EdDSA signing and verifying an access token's real signing input, and the
/// token each makes; then Vouch's whole mint and whole read with the one chosen.
enum AccessTokenAlgorithms {
    static func run(seconds: Double) async throws {
        let claims = AccessTokenClaims(
            issuer: "https://vouch.example.com", subject: "user-0123456789", audience: "chat", appID: UUID(), sessionID: UUID(),
            issuedAt: 1_790_000_000, expiresAt: 1_790_000_300, tokenID: AccessTokenMinter.tokenID(),
            generations: AccessTokenGenerations(
                app: 0, user: 0, provider: .init(id: UUID(), generation: 0), key: .init(id: UUID(), generation: 0)))
        let claimsPart = Base64URL.encode(CanonicalJSON.serialize(.object(claims.jsonObject)))
        func input(_ algorithm: String) -> [UInt8] {
            let header = CanonicalJSON.serialize(.object(["alg": .string(algorithm), "kid": "0123456789abcdefghijkl", "typ": "at+jwt"]))
            return Array((Base64URL.encode(header) + "." + claimsPart).utf8)
        }
        var rows: [(name: String, sign: Measurement, verify: Measurement, size: Int)] = []

        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let rsaInput = input("RS256")
        let rsaSignature = try rsa.signature(for: rsaInput, padding: .insecurePKCS1v1_5)
        rows.append(
            (
                "RS256 (RSA-2048)",
                try await Measurement.run("RS256 sign", seconds: seconds) { _ = try rsa.signature(for: rsaInput, padding: .insecurePKCS1v1_5) },
                try await Measurement.run("RS256 verify", seconds: seconds) {
                    guard rsa.publicKey.isValidSignature(rsaSignature, for: rsaInput, padding: .insecurePKCS1v1_5) else {
                        throw BenchmarkError("RS256 did not verify")
                    }
                },
                rsaInput.count + 1 + Base64URL.encode(rsaSignature.rawRepresentation).utf8.count
            ))

        let p256 = P256.Signing.PrivateKey()
        let esInput = input("ES256")
        let esSignature = try p256.signature(for: esInput)
        rows.append(
            (
                "ES256 (P-256)",
                try await Measurement.run("ES256 sign", seconds: seconds) { _ = try p256.signature(for: esInput) },
                try await Measurement.run("ES256 verify", seconds: seconds) {
                    guard p256.publicKey.isValidSignature(esSignature, for: esInput) else { throw BenchmarkError("ES256 did not verify") }
                },
                esInput.count + 1 + Base64URL.encode(esSignature.rawRepresentation).utf8.count
            ))

        let ed = Curve25519.Signing.PrivateKey()
        let edInput = input("EdDSA")
        let edSignature = try ed.signature(for: edInput)
        rows.append(
            (
                "EdDSA (Ed25519)",
                try await Measurement.run("EdDSA sign", seconds: seconds) { _ = try ed.signature(for: edInput) },
                try await Measurement.run("EdDSA verify", seconds: seconds) {
                    guard ed.publicKey.isValidSignature(edSignature, for: edInput) else { throw BenchmarkError("EdDSA did not verify") }
                },
                edInput.count + 1 + Base64URL.encode(edSignature).utf8.count
            ))

        print("algorithm            sign µs CPU   verify µs CPU   token bytes")
        for row in rows {
            print(
                "\(row.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(String(format: "%11.1f", row.sign.cpuMicros))"
                    + "   \(String(format: "%13.1f", row.verify.cpuMicros))   \(String(format: "%11d", row.size))")
        }

        let generated = AccessTokenSigningKey.generate()
        let key = try AccessTokenSigningKey(keyID: generated.keyID, rawPrivateKey: generated.rawPrivateKey)
        let reader = AccessTokenReader(issuer: claims.issuer, leewaySeconds: 60, keys: [key])
        let token = AccessTokenMinter.mint(claims, with: key)
        let mint = try await Measurement.run("Vouch access token: whole mint (ES256)", seconds: seconds) {
            _ = AccessTokenMinter.mint(claims, with: key)
        }
        let read = try await Measurement.run("Vouch access token: whole read (ES256)", seconds: seconds) {
            guard case .success = reader.read(token, now: claims.issuedAt + 1) else { throw BenchmarkError("the token did not read") }
        }
        print(mint.line)
        print(read.line)
    }
}
