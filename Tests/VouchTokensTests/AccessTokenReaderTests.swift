import Crypto
import Foundation
import Testing
import VouchProtocol
@testable import VouchTokens

/// Vouch reading its own access tokens (introspection): every rule of PROTOCOL §8.16 refuses.
@Suite("Access token reader")
struct AccessTokenReaderTests {
    static let issuer = "https://vouch.example.com"

    static func key() throws -> AccessTokenSigningKey {
        let generated = AccessTokenSigningKey.generate()
        return try AccessTokenSigningKey(keyID: generated.keyID, rawPrivateKey: generated.rawPrivateKey)
    }

    static func claims(issuedAt: Int64 = 1_000, lifetime: Int64 = 300, issuer: String = issuer) -> AccessTokenClaims {
        AccessTokenClaims(
            issuer: issuer, subject: "alice", audience: "chat", appID: UUID(), sessionID: UUID(), issuedAt: issuedAt,
            expiresAt: issuedAt + lifetime, tokenID: AccessTokenMinter.tokenID(),
            generations: AccessTokenGenerations(app: 1, user: 0, provider: .init(id: UUID(), generation: 2), key: .init(id: UUID(), generation: 0)))
    }

    static func recode(_ token: String, header: (inout [String: JSONValue]) -> Void) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var members = (try? CompactJWS(parsing: token))?.header.dictionary ?? [:]
        header(&members)
        return Base64URL.encode(CanonicalJSON.serialize(.object(members))) + "." + parts[1] + "." + parts[2]
    }

    @Test("a minted token reads back with every claim, and the key is published without its private part")
    func roundTrip() throws {
        let key = try Self.key()
        let claims = Self.claims()
        let token = AccessTokenMinter.mint(claims, with: key)
        let reader = AccessTokenReader(issuer: Self.issuer, leewaySeconds: 60, keys: [key])
        #expect(try reader.read(token, now: 1_100).get() == claims)
        guard case .object(let jwk) = key.jwk else {
            Issue.record("not an object")
            return
        }
        #expect(jwk["d"] == nil && jwk["kty"] == "EC" && jwk["kid"] == .string(key.keyID))
        #expect(AccessTokenMinter.tokenID().count == 22)
    }

    @Test("each rule refuses with its own reason")
    func refusals() throws {
        let key = try Self.key()
        let other = try Self.key()
        let reader = AccessTokenReader(issuer: Self.issuer, leewaySeconds: 60, keys: [key])
        let good = AccessTokenMinter.mint(Self.claims(), with: key)
        let cases: [(String, Int64, AccessTokenRefusal)] = [
            ("x", 1_100, .malformed),
            (Self.recode(good) { $0["alg"] = "none" }, 1_100, .unsupportedHeader),
            (Self.recode(good) { $0["alg"] = "HS256" }, 1_100, .unsupportedHeader),
            (Self.recode(good) { $0["typ"] = "JWT" }, 1_100, .unsupportedHeader),
            (AccessTokenMinter.mint(Self.claims(), with: other), 1_100, .unknownKey),
            (Self.recode(AccessTokenMinter.mint(Self.claims(), with: other)) { $0["kid"] = .string(key.keyID) }, 1_100, .badSignature),
            (AccessTokenMinter.mint(Self.claims(issuer: "https://evil.example.com"), with: key), 1_100, .wrongIssuer),
            (good, 1_000 + 300 + 60, .expired),
            (AccessTokenMinter.mint(Self.claims(issuedAt: 2_000), with: key), 1_100, .badLifetime),
            (AccessTokenMinter.mint(Self.claims(lifetime: 301), with: key), 1_100, .badLifetime),
        ]
        for (token, now, refusal) in cases {
            #expect(reader.read(token, now: now) == .failure(refusal), "\(refusal)")
        }
        #expect(throws: AccessTokenKeyError.notAP256PrivateKey) { try AccessTokenSigningKey(keyID: "k", rawPrivateKey: [1, 2, 3]) }
    }
}

@Suite("Access token claims")
struct AccessTokenClaimsTests {
    @Test("the claims written member by member are CanonicalJSON's bytes, with and without a provider and key")
    func sameAsCanonicalJSON() {
        for subject in ["alice", "a\"b\\c\n\u{1}é😀", ""] {
            var claims = AccessTokenReaderTests.claims()
            claims.subject = subject
            #expect(String(decoding: claims.json, as: UTF8.self) == String(decoding: CanonicalJSON.serialize(.object(claims.jsonObject)), as: UTF8.self))
            claims.generations.provider = nil
            claims.generations.key = nil
            #expect(claims.json == CanonicalJSON.serialize(.object(claims.jsonObject)))
            #expect(AccessTokenClaims(members: try! StrictJSON().parseMembers(claims.json)) == claims)
        }
        #expect(AccessTokenMinter.tokenID(random: Array(0..<16)).count == 22)
    }
}
