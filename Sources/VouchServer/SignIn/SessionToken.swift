import Crypto
import Foundation
import VouchTokens

/// Session tokens: the microsecond they were made (8 bytes, big-endian microseconds since the Unix
/// epoch) and 256 bits from the system CSPRNG, base64url; the store keeps only a key made of that
/// stamp and the token's SHA-256.
///
/// Looking a session up by the hash of the presented token means the database never holds a
/// usable token, and the lookup's timing depends on the hash, not on how many leading characters
/// of a real token an attacker guessed. The leading stamp is what makes sign-ins cheap to store:
/// keys that start with it are appended where the last ones went, in the session table and in its
/// expiry index (whose entries end with the key). A key by hash alone, or by the second alone,
/// lands on a random page among many and splits them, so a group commit writes many pages to the
/// WAL (docs/PERFORMANCE.md, "The durable write"). The stamp tells a token's holder nothing they
/// did not know.
///
/// The store reads the leading eight bytes as bytes, never as a time, so tokens of every earlier
/// layout are still found: those that led with their second under that second and their hash
/// (they sort before every stamp in microseconds), those with no stamp under their bare hash.
enum SessionToken {
    private static let stampCount = MicrosecondStamp.byteCount
    private static let randomCount = 32

    /// A new token and its store key, stamped `now` (the server clock's second) and `microsecond`
    /// (see `MicrosecondStamp`).
    static func generate(now: Int64, microsecond: Int64 = MicrosecondStamp.currentMicrosecondWithinSecond()) -> (token: String, key: [UInt8]) {
        let stamp = MicrosecondStamp.make(now: now, microsecond: microsecond)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: stampCount + randomCount) { bytes in
            withUnsafeBytes(of: stamp.bigEndian) { stampBytes in
                for index in 0..<stampCount { bytes[index] = stampBytes[index] }
            }
            SecureRandom.fill(UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: bytes[stampCount...])))
            let token = Base64URL.encode(UnsafeBufferPointer(bytes))
            return (token, key(stamp: UnsafeBufferPointer(rebasing: bytes[..<stampCount]), token: token))
        }
    }

    /// The key a token's session is stored under: its stamp and its SHA-256, or its SHA-256
    /// alone for a token without one. Whatever is presented, only a real token's hash matches a
    /// stored key.
    static func storageKey(_ token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { utf8 in
            guard utf8.count == stampedTokenLength,
                let key = Base64URL.withDecodedCanonical(
                    utf8,
                    { bytes in
                        bytes.count == stampCount + randomCount ? key(stamp: UnsafeBufferPointer(rebasing: bytes[..<stampCount]), utf8: utf8) : nil
                    }) ?? nil
            else {
                return SHA256.hash(data: UnsafeRawBufferPointer(utf8)).withUnsafeBytes { Array($0) }
            }
            return key
        }
    }

    private static func key(stamp: UnsafeBufferPointer<UInt8>, token: String) -> [UInt8] {
        var token = token
        return token.withUTF8 { key(stamp: stamp, utf8: $0) }
    }

    private static func key(stamp: UnsafeBufferPointer<UInt8>, utf8: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var key = [UInt8]()
        key.reserveCapacity(stamp.count + SHA256.byteCount)
        key.append(contentsOf: stamp)
        SHA256.hash(data: UnsafeRawBufferPointer(utf8)).withUnsafeBytes { key.append(contentsOf: $0) }
        return key
    }

    /// Unpadded base64url of 40 bytes.
    private static let stampedTokenLength = ((stampCount + randomCount) * 4 + 2) / 3
}
