import Crypto
import Foundation
import Testing
import VouchResourceServer

@Suite("The algorithm and the key come from the pinned issuer, never from the token")
struct AlgorithmTests {
    @Test("alg other than ES256 is refused", arguments: ["none", "HS256", "RS256", "ES384", "PS256", "es256", "ES256 ", ""])
    func otherAlgorithms(algorithm: String) async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let claims = jsonText(vouch.claims(clock: clock).dictionary)
            let header = jsonText(["alg": algorithm, "kid": "key-1", "typ": "at+jwt"])
            let input = base64URL(Array(header.utf8)) + "." + base64URL(Array(claims.utf8))
            // Unsigned, signed with a made-up RSA-sized signature, and with a valid ES256 signature.
            await expectRejection(.unsupportedAlgorithm, verifier, input + ".")
            await expectRejection(.unsupportedAlgorithm, verifier, input + "." + base64URL([UInt8](repeating: 7, count: 256)))
            await expectRejection(.unsupportedAlgorithm, verifier, vouch.signingKey.signRaw(claims: claims, header: header))
        }
    }

    @Test("HS256 keyed with the published public key (the algorithm confusion attack) is refused")
    func algorithmConfusion() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let header = jsonText(["alg": "HS256", "kid": "key-1", "typ": "at+jwt"])
            let input = base64URL(Array(header.utf8)) + "." + base64URL(Array(jsonText(vouch.claims(clock: clock).dictionary).utf8))
            for secret in [vouch.signingKey.privateKey.publicKey.x963Representation, Data(jsonText(vouch.signingKey.jwk).utf8)] {
                let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: secret))
                await expectRejection(.unsupportedAlgorithm, verifier, input + "." + base64URL(Array(mac)))
            }
        }
    }

    @Test("jku, x5u, jwk and x5c headers are never fetched nor used")
    func embeddedKeysIgnored() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let attacker = TestSigningKey("attacker")
            let claims = vouch.claims(clock: clock).dictionary
            let pointers: [String: Any] = [
                "jku": vouch.attackerURL, "x5u": vouch.attackerURL, "jwk": attacker.jwk, "x5c": ["MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"],
            ]
            func header(kid: String) -> [String: Any] { pointers.merging(["alg": "ES256", "typ": "at+jwt", "kid": kid]) { $1 } }
            // Signed by the real key: verified against the pinned JWKS only, the pointers ignored.
            _ = try await verifier.verify(vouch.signingKey.sign(claims: claims, header: header(kid: "key-1")))
            // Signed by the attacker's key, which the token carries: refused whatever kid it names.
            await expectRejection(.badSignature, verifier, attacker.sign(claims: claims, header: header(kid: "key-1")))
            await expectRejection(.unknownKey, verifier, attacker.sign(claims: claims, header: header(kid: "attacker")))
            #expect(vouch.attackerRequests == 0)
        }
    }
}
