import Crypto
import Foundation
import _CryptoExtras

/// RSA keys for the Layer profile: generating a provider's key pair, and reading the PEM files an
/// operator uploads or a backend signs with.
public struct RSAKeyPair: Sendable {
    public let privateKey: _RSA.Signing.PrivateKey

    public init(privateKey: _RSA.Signing.PrivateKey) { self.privateKey = privateKey }

    /// A fresh key pair; 2048 bits unless asked for more (3072 or 4096).
    public static func generate(bits: Int = 2048) throws -> RSAKeyPair {
        guard bits >= RS256.minimumKeySize else { throw MintingError.keyTooSmall(bits: bits) }
        return RSAKeyPair(privateKey: try _RSA.Signing.PrivateKey(keySize: .init(bitCount: bits)))
    }

    /// A fresh key pair, searched for on a Dispatch thread: finding two primes takes tens of
    /// milliseconds (seconds in a debug build) of CPU that must not hold one of Swift
    /// concurrency's few threads, on which every request waits.
    public static func generateOffTheConcurrencyPool(bits: Int = 2048) async throws -> RSAKeyPair {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try generate(bits: bits) }) }
        }
    }

    /// Reads a private key in PKCS#1 (`BEGIN RSA PRIVATE KEY`) or PKCS#8 (`BEGIN PRIVATE KEY`) PEM.
    public static func privateKey(pem: String) throws(MintingError) -> _RSA.Signing.PrivateKey {
        let key: _RSA.Signing.PrivateKey
        do {
            key = try _RSA.Signing.PrivateKey(unsafePEMRepresentation: pem)
        } catch {
            throw .invalidPrivateKey("not an RSA private key in PKCS#1 or PKCS#8 PEM")
        }
        guard key.keySizeInBits >= RS256.minimumKeySize else { throw .keyTooSmall(bits: key.keySizeInBits) }
        return key
    }

    /// PKCS#8 PEM (`BEGIN PRIVATE KEY`), the form most tools read.
    public var privateKeyPEM: String { privateKey.pkcs8PEMRepresentation }
    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }
    public var fingerprint: String { PublicKeyInfo.fingerprint(of: privateKey.publicKey) }

    /// The public half as a JWK for a provider's JWKS (RFC 7517): `use` `sig`, `alg` RS256, and
    /// `n` without leading zero bytes, as RFC 7518 §6.3.1.1 requires.
    public func publicJWK(kid: String) throws -> [String: String] {
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        return [
            "kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
            "n": Base64URL.encode(Array(primitives.modulus.drop { $0 == 0 })), "e": Base64URL.encode(Array(primitives.publicExponent)),
        ]
    }
}
