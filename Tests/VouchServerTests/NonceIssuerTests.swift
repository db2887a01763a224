import Crypto
import Foundation
import Testing
import VouchStore
import VouchTokens
@testable import VouchServer

/// PROTOCOL §8.4: a server nonce carries its own proof (its expiry, its app, an HMAC under the
/// stored secret), and its use is recorded under its SHA-256.
@Suite("Server nonces")
struct NonceIssuerTests {
    private static let secret = Array(repeating: UInt8(7), count: 32)
    private static let now: Int64 = 1_800_000_000

    @Test("a nonce is 32 random bytes, its expiry, its app and its tag; its use is recorded under its SHA-256")
    func shape() throws {
        let issuer = NonceIssuer(secret: Self.secret)
        let appID = UUID()
        for bound in [nil, appID] {
            let (nonce, expiresAt) = issuer.issue(now: Self.now, appID: bound)
            let bytes = try #require(Base64URL.decodeCanonical(nonce))
            #expect(bytes.count == (bound == nil ? 72 : 88))
            #expect(nonce.utf8.count == (bound == nil ? 96 : 118))
            #expect(expiresAt == Self.now + NonceIssuer.lifetime)
            #expect(Array(bytes[32..<40]) == withUnsafeBytes(of: UInt64(expiresAt).bigEndian, Array.init))
            if let bound { #expect(Array(bytes[40..<56]) == withUnsafeBytes(of: bound.uuid, Array.init)) }
            let payload = Array(bytes[..<(bytes.count - 32)])
            #expect(Array(bytes.suffix(32)) == Array(HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: Self.secret))))
            let opened = try #require(issuer.open(nonce, now: Self.now))
            #expect(opened.use.expiresAt == expiresAt)
            #expect(opened.appID == bound)
            #expect(opened.use.hash == Array(SHA256.hash(data: bytes)))
        }
        #expect(issuer.issue(now: Self.now).nonce != issuer.issue(now: Self.now).nonce)
    }

    @Test("a nonce opens until its expiry and only under its own secret")
    func lifetime() throws {
        let issuer = NonceIssuer(secret: Self.secret)
        let (nonce, expiresAt) = issuer.issue(now: Self.now)
        #expect(issuer.open(nonce, now: expiresAt - 1) != nil)
        #expect(issuer.open(nonce, now: expiresAt) == nil)
        #expect(NonceIssuer(secret: Array(repeating: 8, count: 32)).open(nonce, now: Self.now) == nil)
    }

    @Test("a changed byte, a byte too many or too few, or an app id taken off opens nothing")
    func tampering() throws {
        let issuer = NonceIssuer(secret: Self.secret)
        let (nonce, _) = issuer.issue(now: Self.now, appID: UUID())
        let bytes = try #require(Base64URL.decodeCanonical(nonce))
        #expect(issuer.open(nonce, now: Self.now) != nil)
        for index in [0, 31, 32, 39, 40, 55, 56, 87] {
            var changed = bytes
            changed[index] ^= 0x01
            #expect(issuer.open(Base64URL.encode(changed), now: Self.now) == nil, "byte \(index)")
        }
        #expect(issuer.open(Base64URL.encode(bytes + [0]), now: Self.now) == nil)
        #expect(issuer.open(Base64URL.encode(Array(bytes.dropLast())), now: Self.now) == nil)
        // Without its app id the nonce has an unbound nonce's length, and its tag no longer fits.
        #expect(issuer.open(Base64URL.encode(Array(bytes[..<40]) + Array(bytes[56...])), now: Self.now) == nil)
        #expect(issuer.open(nonce + "=", now: Self.now) == nil, "not canonical base64url")
    }
}
