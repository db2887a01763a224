import Crypto
import VouchTokens

/// Session tokens: 256 bits from the system CSPRNG, base64url; only their SHA-256 is stored.
///
/// Looking a session up by the hash of the presented token means the database never holds a
/// usable token, and the lookup's timing depends on the hash, not on how many leading characters
/// of a real token an attacker guessed.
enum SessionToken {
    static func generate() -> (token: String, hash: [UInt8]) {
        let token = Base64URL.encode(SecureRandom.bytes(32))
        return (token, hash(token))
    }

    static func hash(_ token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}
