import Crypto
import VouchTokens

/// Session tokens: the second they were made (8 bytes, big-endian Unix seconds) and 256 bits from
/// the system CSPRNG, base64url; the store keeps only a key made of that second and the token's
/// SHA-256.
///
/// Looking a session up by the hash of the presented token means the database never holds a
/// usable token, and the lookup's timing depends on the hash, not on how many leading characters
/// of a real token an attacker guessed. The leading second is what makes sign-ins cheap to
/// store: keys by hash alone land on a random page of the session table each (every one of them
/// written to the WAL, and again at the checkpoint), while keys that start with their second are
/// appended where the last ones went. It tells a token's holder nothing they did not know.
/// Tokens made before it (256 random bits, no second) are still found, under their bare hash.
enum SessionToken {
    private static let secondCount = 8
    private static let randomCount = 32

    static func generate(now: Int64) -> (token: String, key: [UInt8]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(secondCount + randomCount)
        withUnsafeBytes(of: UInt64(bitPattern: now).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: SecureRandom.bytes(randomCount))
        let token = Base64URL.encode(bytes)
        return (token, storageKey(token))
    }

    /// The key a token's session is stored under: its second and its SHA-256, or its SHA-256
    /// alone for a token without a second. Whatever is presented, only a real token's hash
    /// matches a stored key.
    static func storageKey(_ token: String) -> [UInt8] {
        let hash = Array(SHA256.hash(data: Array(token.utf8)))
        guard token.utf8.count == timedTokenLength, let bytes = Base64URL.decodeCanonical(token),
              bytes.count == secondCount + randomCount else { return hash }
        return Array(bytes[..<secondCount]) + hash
    }

    /// Unpadded base64url of 40 bytes.
    private static let timedTokenLength = ((secondCount + randomCount) * 4 + 2) / 3
}
