import Crypto
import Foundation
import VouchProtocol

/// One of Vouch's ES256 keys for access tokens, parsed once: the private half signs, the public
/// half is published in the JWKS (`jwk`) and checks the server's own tokens on introspection.
///
/// ES256 by measurement (docs/PERFORMANCE.md): signing costs a twentieth of RS256's, the
/// signature is a quarter of its size, and unlike EdDSA every common JWT library verifies it.
public struct AccessTokenSigningKey: Sendable {
    public static let algorithm = "ES256"

    public let keyID: String
    let privateKey: P256.Signing.PrivateKey
    public let publicKey: P256.Signing.PublicKey
    /// `base64url(header) "."`: every token this key signs starts with it.
    let encodedHeaderWithDot: [UInt8]

    /// - Throws: `AccessTokenKeyError` when the bytes are not a P-256 private scalar.
    public init(keyID: String, rawPrivateKey: [UInt8]) throws(AccessTokenKeyError) {
        do {
            privateKey = try P256.Signing.PrivateKey(rawRepresentation: rawPrivateKey)
        } catch {
            throw AccessTokenKeyError.notAP256PrivateKey
        }
        self.keyID = keyID
        publicKey = privateKey.publicKey
        let header = CanonicalJSON.serialize(
            .object(["alg": .string(Self.algorithm), "kid": .string(keyID), "typ": .string(AccessTokenReader.type)]))
        encodedHeaderWithDot = Array(Base64URL.encode(header).utf8) + [UInt8(ascii: ".")]
    }

    /// A fresh key: a random `kid` (16 bytes, never derived from the key) and a random scalar.
    public static func generate() -> (keyID: String, rawPrivateKey: [UInt8]) {
        var idBytes = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &idBytes) }
        return (Base64URL.encode(id), Array(P256.Signing.PrivateKey().rawRepresentation))
    }

    /// The public key as a JWK (RFC 7517/7518): what `GET /.well-known/jwks.json` lists.
    public var jwk: JSONValue {
        // x963: 0x04 || x (32 bytes) || y (32 bytes).
        let point = Array(publicKey.x963Representation)
        return .object([
            "kty": "EC", "crv": "P-256", "alg": .string(Self.algorithm), "use": "sig", "kid": .string(keyID),
            "x": .string(Base64URL.encode(point[1..<33])), "y": .string(Base64URL.encode(point[33..<65])),
        ])
    }
}

/// A stored signing key that cannot be used.
public enum AccessTokenKeyError: Error, Sendable, Equatable {
    case notAP256PrivateKey
}
