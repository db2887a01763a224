import Crypto
import Foundation
import VouchProtocol
import VouchTokens
import _CryptoExtras

/// Whole-token verification in one task with an in-memory world, next to the primitives it
/// cannot avoid (one RSA-2048 verify, one HMAC-SHA256), so the ratio says what Vouch adds.
enum TokenBenchmarks {
    /// - Parameter only: when given, runs just the measurements whose name contains it (to profile one
    ///   of them with perf); the ratios are printed when both of their measurements ran.
    static func run(seconds: Double, only: String? = nil) async throws {
        func measure(_ name: String, _ operation: () async throws -> Void) async throws -> Measurement? {
            if let only, !name.localizedCaseInsensitiveContains(only) { return nil }
            return try await Measurement.run(name, seconds: seconds, operation)
        }
        let pair = try RSAKeyPair.generate()
        let providerID = UUID(), keyID = UUID(), appID = UUID(), applicationKey = UUID()
        let secret = (0..<32).map { UInt8($0) }
        let facts = BenchmarkFacts(
            key: LayerVerificationKey(id: keyID, providerID: providerID, status: .active, publicKey: pair.privateKey.publicKey),
            appID: appID,
            secret: RegistrationSecret(applicationKey: applicationKey, appID: appID, secret: secret))
        let now = Int64(Date().timeIntervalSince1970)
        let layer = try LayerTokenMinter(privateKey: pair.privateKey, providerID: providerID, keyID: keyID)
        let sinch = try SinchTokenMinter(applicationKey: applicationKey.lowercased, applicationSecret: Data(secret).base64EncodedString())
        let layerToken = try layer.mint(userID: "alice", nonce: String(repeating: "n", count: 96), issuedAt: now)
        let sinchToken = try sinch.mint(userID: "alice", issuedAt: now)
        let jws = try CompactJWS(parsing: layerToken)
        let sinchJWS = try CompactJWS(parsing: sinchToken)
        let sinchKey = SymmetricKey(data: SinchSigningKey.derive(secret: secret, date: CivilDate(unixSeconds: now)))
        let verifier = TokenVerifier()

        let rsa = try await measure("RS256 verify (the primitive)") {
            guard RS256.isValid(signature: jws.signature, for: jws.signingInput, publicKey: pair.privateKey.publicKey) else {
                throw BenchmarkError("signature did not verify")
            }
        }
        let layerVerify = try await measure("Layer token: whole verify") {
            _ = try await verifier.verify(layerToken, appID: appID, facts: facts, now: now)
        }
        let hmac = try await measure("HMAC-SHA256 (the primitive)") {
            var authenticator = HMAC<SHA256>(key: sinchKey)
            sinchJWS.signingInput.withUnsafeBytes { authenticator.update(data: $0) }
            _ = authenticator.finalize()
        }
        let sinchVerify = try await measure("Sinch token: whole verify") {
            _ = try await verifier.verify(sinchToken, appID: appID, facts: facts, now: now)
        }
        let parse = try await measure("Layer token: parse only (rules #1-#4)") {
            _ = try CompactJWS(parsing: layerToken)
        }
        let sinchParse = try await measure("Sinch token: parse only (rules #1-#4)") {
            _ = try CompactJWS(parsing: sinchToken)
        }
        let mint = try await measure("Layer token: mint (RS256 sign)") {
            _ = try layer.mint(userID: "alice", nonce: "n", issuedAt: now)
        }
        let sinchMint = try await measure("Sinch token: mint") {
            _ = try sinch.mint(userID: "alice", issuedAt: now)
        }
        for result in [rsa, layerVerify, hmac, sinchVerify, parse, sinchParse, mint, sinchMint].compactMap({ $0 }) { print(result.line) }
        // By CPU time per operation, which a busy machine disturbs less than wall-clock rates.
        if let rsa, let layerVerify {
            print(String(format: "ratio: Layer whole verify / RSA verify = %.2f (target >= 0.80)", rsa.cpuMicros / layerVerify.cpuMicros))
        }
        if let hmac, let sinchVerify {
            print(String(format: "ratio: Sinch whole verify / HMAC-SHA256 = %.2f (target >= 0.50)", hmac.cpuMicros / sinchVerify.cpuMicros))
        }
    }
}
