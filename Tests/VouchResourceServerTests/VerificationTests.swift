import Crypto
import Foundation
import Testing
import VouchResourceServer

/// Expects `verify` to refuse `token` with `kind`.
func expectRejection(
    _ kind: AccessTokenRejection.Kind, _ verifier: AccessTokenVerifier, _ token: String, sourceLocation: SourceLocation = #_sourceLocation
) async {
    do throws(AccessTokenRejection) {
        _ = try await verifier.verify(token)
        Issue.record("accepted a token that should be refused with \(kind)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.kind == kind, sourceLocation: sourceLocation)
    }
}

@Suite("Verifying an access token")
struct VerificationTests {
    @Test("a token as Vouch mints it is accepted, with every claim read")
    func validToken() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let providerID = UUID()
            let keyID = UUID()
            let claims = vouch.claims(clock: clock) {
                $0.generations = ["app": 3, "user": 4, "provider": 5, "key": 6]
                $0.providerID = providerID
                $0.keyID = keyID
            }
            let verified = try await verifier.verify(vouch.signingKey.sign(claims: claims.dictionary))
            #expect(verified.userID == "alice")
            #expect(verified.appID == TestClaims.appID)
            #expect(verified.sessionID == claims.sessionID)
            #expect(verified.audience == TestClaims.audience)
            #expect(verified.issuedAt.timeIntervalSince1970 == claims.issuedAt)
            #expect(verified.expiresAt.timeIntervalSince1970 == claims.issuedAt + 300)
            #expect(verified.tokenID == claims.tokenID)
            #expect(verified.generations == AccessTokenGenerations(app: 3, user: 4, provider: 5, key: 6))
            #expect(verified.providerID == providerID)
            #expect(verified.keyID == keyID)
        }
    }

    @Test("an aud array naming the pinned audience is accepted; one without it is not")
    func audienceArray() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            var claims = vouch.claims(clock: clock).dictionary
            claims["aud"] = ["media.example.com", TestClaims.audience]
            _ = try await verifier.verify(vouch.signingKey.sign(claims: claims))
            claims["aud"] = ["media.example.com"]
            await expectRejection(.wrongAudience, verifier, vouch.signingKey.sign(claims: claims))
        }
    }

    @Test("each claim rule refuses with its own kind")
    func claimRules() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            await expectRejection(.wrongIssuer, verifier, vouch.token(clock: clock) { $0.issuer = "https://evil.example.com" })
            await expectRejection(.wrongIssuer, verifier, vouch.token(clock: clock) { $0.issuer = vouch.issuer + "/" })
            await expectRejection(.wrongAudience, verifier, vouch.token(clock: clock) { $0.audience = "media.example.com" })
            // Expired: `exp` at or before now − leeway; within the leeway still accepted.
            await expectRejection(.expired, verifier, vouch.token(clock: clock) { $0.issuedAt -= 360 })
            _ = try await verifier.verify(vouch.token(clock: clock) { $0.issuedAt -= 359 })
            await expectRejection(.notYetValid, verifier, vouch.token(clock: clock) { $0.issuedAt += 61 })
            _ = try await verifier.verify(vouch.token(clock: clock) { $0.issuedAt += 60 })
            await expectRejection(.lifetimeTooLong, verifier, vouch.token(clock: clock) { $0.lifetime = 301 })
            _ = try await verifier.verify(vouch.token(clock: clock) { $0.lifetime = 1 })
        }
    }

    @Test("a missing or mistyped claim is malformed", arguments: ["sub", "app", "sid", "jti", "gen", "iat", "exp", "iss", "aud"])
    func missingClaim(name: String) async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            var claims = vouch.claims(clock: clock).dictionary
            claims[name] = nil
            await expectRejection(.malformed, verifier, vouch.signingKey.sign(claims: claims))
            claims[name] = ["not": "a string or integer"]
            await expectRejection(.malformed, verifier, vouch.signingKey.sign(claims: claims))
        }
    }

    @Test("claims of the wrong shape are malformed")
    func malformedClaims() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let good = vouch.claims(clock: clock).dictionary
            func with(_ name: String, _ value: Any) -> String {
                var claims = good
                claims[name] = value
                return vouch.signingKey.sign(claims: claims)
            }
            await expectRejection(.malformed, verifier, with("sid", "not-a-uuid"))
            await expectRejection(.malformed, verifier, with("app", "my-app"))
            await expectRejection(.malformed, verifier, with("exp", Double(good["exp"] as! Int64) + 0.5))
            await expectRejection(.malformed, verifier, with("gen", ["app": 1]))
            await expectRejection(.malformed, verifier, with("gen", ["app": 1, "user": "2"]))
            await expectRejection(.malformed, verifier, with("provider_id", UUID().uuidString))  // without gen.provider
            await expectRejection(.malformed, verifier, with("sub", ""))
            // A member written twice could mean two users to two parsers.
            let text = jsonText(good)
            let duplicated = String(text.dropLast()) + #","sub":"mallory"}"#
            await expectRejection(.malformed, verifier, vouch.signingKey.signRaw(claims: duplicated, header: #"{"alg":"ES256","kid":"key-1","typ":"at+jwt"}"#))
        }
    }

    @Test("a token that is not a strict compact JWS is malformed")
    func malformedCompactForm() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let token = vouch.token(clock: clock)
            let parts = token.split(separator: ".").map(String.init)
            await expectRejection(.malformed, verifier, "")
            await expectRejection(.malformed, verifier, "garbage")
            await expectRejection(.malformed, verifier, parts[0] + "." + parts[1])
            await expectRejection(.malformed, verifier, token + ".")
            await expectRejection(.malformed, verifier, parts[0] + "." + parts[1] + ".")
            await expectRejection(.malformed, verifier, parts[0] + "=." + parts[1] + "." + parts[2])
            await expectRejection(.malformed, verifier, parts[0] + "." + parts[1] + " ." + parts[2])
            await expectRejection(.malformed, verifier, parts[0] + "." + parts[1] + "+." + parts[2])
            await expectRejection(.malformed, verifier, base64URL(Array("[1]".utf8)) + "." + parts[1] + "." + parts[2])
            await expectRejection(.malformed, verifier, String(repeating: "a", count: 9000))
            // No kid, a crit header: refused before any key is looked for.
            await expectRejection(
                .malformed, verifier, vouch.signingKey.sign(claims: vouch.claims(clock: clock).dictionary, header: ["alg": "ES256", "typ": "at+jwt"]))
            await expectRejection(
                .malformed, verifier,
                vouch.signingKey.sign(
                    claims: vouch.claims(clock: clock).dictionary, header: ["alg": "ES256", "typ": "at+jwt", "kid": "key-1", "crit": ["exp"]]))
            await expectRejection(
                .wrongType, verifier,
                vouch.signingKey.sign(claims: vouch.claims(clock: clock).dictionary, header: ["alg": "ES256", "typ": "JWT", "kid": "key-1"]))
            await expectRejection(
                .wrongType, verifier, vouch.signingKey.sign(claims: vouch.claims(clock: clock).dictionary, header: ["alg": "ES256", "kid": "key-1"]))
        }
    }

    @Test("a signature that does not hold is refused")
    func badSignature() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let token = vouch.token(clock: clock)
            let parts = token.split(separator: ".").map(String.init)
            // Another payload under the first's signature.
            let other = vouch.token(clock: clock) { $0.userID = "mallory" }.split(separator: ".").map(String.init)
            await expectRejection(.badSignature, verifier, parts[0] + "." + other[1] + "." + parts[2])
            // A signature of the wrong length, and one by another key under the published kid.
            await expectRejection(.badSignature, verifier, parts[0] + "." + parts[1] + "." + base64URL([UInt8](repeating: 1, count: 63)))
            let impostor = TestSigningKey("key-1")
            await expectRejection(.badSignature, verifier, vouch.token(clock: clock, key: impostor))
            _ = try await verifier.verify(token)
        }
    }

    @Test("a kid the key set does not have is refused")
    func unknownKey() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            await expectRejection(.unknownKey, verifier, vouch.token(clock: clock, key: TestSigningKey("key-2")))
        }
    }

    @Test("a JWKS that never answered leaves nothing to verify with")
    func keysUnavailable() async throws {
        try await TestVouch.run { vouch in
            vouch.setFailing(true)
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            await expectRejection(.keysUnavailable, verifier, vouch.token(clock: clock))
            #expect(vouch.jwksRequests == 1)
            // Within the retry interval no new fetch is made.
            await expectRejection(.keysUnavailable, verifier, vouch.token(clock: clock))
            #expect(vouch.jwksRequests == 1)
            await #expect(throws: AccessTokenRejection.keysUnavailable) { try await verifier.refreshKeys() }
            #expect(verifier.keySetStatus.lastFailure == "status 503")
            vouch.setFailing(false)
            clock.advance(by: 10)
            _ = try await verifier.verify(vouch.token(clock: clock))
            #expect(verifier.keySetStatus.lastFailure == nil)
        }
    }

    @Test("a rejection's description never holds the token")
    func descriptionsHoldNoToken() async throws {
        try await TestVouch.run { vouch in
            let clock = TestClock()
            let verifier = vouch.verifier(clock: clock)
            let tokens = [
                vouch.token(clock: clock) { $0.issuer = "https://evil.example.com" }, vouch.token(clock: clock) { $0.sessionID = UUID() } + "x",
                vouch.token(clock: clock, key: TestSigningKey("key-9")),
            ]
            for token in tokens {
                do {
                    _ = try await verifier.verify(token)
                    Issue.record("accepted")
                } catch {
                    for part in token.split(separator: ".") { #expect(!"\(error)".contains(part)) }
                    #expect(!"\(error)".contains("evil"))
                }
            }
        }
    }
}
