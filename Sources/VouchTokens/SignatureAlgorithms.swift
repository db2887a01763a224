import Crypto
import _CryptoExtras

/// The only two signature algorithms Vouch accepts, each fixed by a token profile.
///
/// These are the exact primitives the verifier calls, exposed so that the Wycheproof vectors are
/// run through the same code path as real tokens.
public enum RS256 {
    /// The smallest RSA modulus a key may have.
    static let minimumKeySize = 2048

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `message`.
    public static func isValid(signature: [UInt8], for message: [UInt8], publicKey: _RSA.Signing.PublicKey) -> Bool {
        guard publicKey.keySizeInBits >= minimumKeySize else { return false }
        return publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: message.withUnsafeBytes { SHA256.hash(data: $0) },
            padding: .insecurePKCS1v1_5)
    }

    public static func sign(_ message: [UInt8], privateKey: _RSA.Signing.PrivateKey) throws -> [UInt8] {
        let signature = try privateKey.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        return Array(signature.rawRepresentation)
    }
}

public enum HS256 {
    /// HMAC-SHA256 tag check in constant time (swift-crypto's `==` of a code with bytes compares
    /// without early exit).
    public static func isValid(tag: [UInt8], for message: [UInt8], key: SymmetricKey) -> Bool {
        isValid(tag: tag, for: message, key: KeyedHMAC(key: key))
    }

    /// The same check with a key that was keyed once for many messages.
    public static func isValid(tag: [UInt8], for message: [UInt8], key: KeyedHMAC) -> Bool {
        key.isValid(tag: tag, for: message)
    }

    public static func sign(_ message: [UInt8], key: SymmetricKey) -> [UInt8] {
        KeyedHMAC(key: key).code(message)
    }
}
