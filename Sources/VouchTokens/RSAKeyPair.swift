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
}

/// A public key an operator uploads, checked before it is stored.
public struct PublicKeyInfo: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        case notAPublicKey
        case tooSmall(bits: Int)
    }

    public let key: _RSA.Signing.PublicKey
    /// SubjectPublicKeyInfo PEM, normalised whatever spelling was uploaded.
    public let pem: String
    public let fingerprint: String

    /// Accepts SPKI (`BEGIN PUBLIC KEY`) or PKCS#1 (`BEGIN RSA PUBLIC KEY`) PEM of an RSA key of at
    /// least 2048 bits; a private key, a certificate or anything else is refused.
    public init(pem text: String) throws(Failure) {
        guard text.contains("PUBLIC KEY-----") else { throw .notAPublicKey }
        let key: _RSA.Signing.PublicKey
        do {
            key = try _RSA.Signing.PublicKey(unsafePEMRepresentation: text)
        } catch {
            throw .notAPublicKey
        }
        guard key.keySizeInBits >= RS256.minimumKeySize else { throw .tooSmall(bits: key.keySizeInBits) }
        self.key = key
        self.pem = key.pemRepresentation
        self.fingerprint = Self.fingerprint(of: key)
    }

    /// `sha256:` + lower-case hex of the SHA-256 of the SubjectPublicKeyInfo DER: the same
    /// key always has the same fingerprint, however its PEM was wrapped.
    public static func fingerprint(of key: _RSA.Signing.PublicKey) -> String {
        "sha256:" + SHA256.hash(data: key.derRepresentation).map { String(format: "%02x", $0) }.joined()
    }
}
