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
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: secondCount + randomCount) { bytes in
            withUnsafeBytes(of: UInt64(bitPattern: now).bigEndian) { second in
                for index in 0..<secondCount { bytes[index] = second[index] }
            }
            SecureRandom.fill(UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: bytes[secondCount...])))
            let token = Base64URL.encode(UnsafeBufferPointer(bytes))
            return (token, key(second: UnsafeBufferPointer(rebasing: bytes[..<secondCount]), token: token))
        }
    }

    /// The key a token's session is stored under: its second and its SHA-256, or its SHA-256
    /// alone for a token without a second. Whatever is presented, only a real token's hash
    /// matches a stored key.
    static func storageKey(_ token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { utf8 in
            guard utf8.count == timedTokenLength,
                  let key = Base64URL.withDecodedCanonical(utf8, { bytes in
                      bytes.count == secondCount + randomCount ? key(second: UnsafeBufferPointer(rebasing: bytes[..<secondCount]), utf8: utf8) : nil
                  }) ?? nil else {
                return Array(SHA256.hash(data: UnsafeRawBufferPointer(utf8)))
            }
            return key
        }
    }

    private static func key(second: UnsafeBufferPointer<UInt8>, token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { key(second: second, utf8: $0) }
    }

    private static func key(second: UnsafeBufferPointer<UInt8>, utf8: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var key = [UInt8]()
        key.reserveCapacity(second.count + SHA256.byteCount)
        key.append(contentsOf: second)
        SHA256.hash(data: UnsafeRawBufferPointer(utf8)).withUnsafeBytes { key.append(contentsOf: $0) }
        return key
    }

    /// Unpadded base64url of 40 bytes.
    private static let timedTokenLength = ((secondCount + randomCount) * 4 + 2) / 3
}
