import Crypto
import _CryptoExtras

/// The only two signature algorithms Vouch accepts, each fixed by a token profile.
///
/// These are the exact primitives the verifier calls, exposed so that the Wycheproof vectors are
/// run through the same code path as real tokens.
public enum RS256 {
    /// The smallest RSA modulus a key may have.
    public static let minimumKeySize = 2048

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `message`.
    public static func isValid(signature: [UInt8], for message: [UInt8], publicKey: _RSA.Signing.PublicKey) -> Bool {
        guard publicKey.keySizeInBits >= minimumKeySize else { return false }
        return publicKey.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature),
            for: SHA256.hash(data: message),
            padding: .insecurePKCS1v1_5)
    }

    public static func sign(_ message: [UInt8], privateKey: _RSA.Signing.PrivateKey) throws -> [UInt8] {
        let signature = try privateKey.signature(for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        return Array(signature.rawRepresentation)
    }
}

public enum HS256 {
    /// HMAC-SHA256 tag check in constant time (swift-crypto compares without early exit).
    public static func isValid(tag: [UInt8], for message: [UInt8], key: SymmetricKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: message, using: key)
    }

    public static func sign(_ message: [UInt8], key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: key))
    }
}
