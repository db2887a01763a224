import Crypto
import Foundation
import VouchStore
import VouchTokens

/// Server nonces that carry their own proof, so issuing one writes nothing.
///
/// A nonce is `base64url(32 random bytes ‖ expiry (8 bytes, big-endian Unix seconds) ‖
/// [app id (16 bytes)] ‖ HMAC-SHA256(server secret, everything before it))`. The app id is there
/// when the nonce was requested for one app (`POST /nonces {"app_id"}`, and every challenge
/// nonce of a session): such a nonce admits a sign-in to that app only, so a token for a
/// provider bound to two apps cannot be replayed into the other. `POST /nonces` is unauthenticated, so a
/// stored-per-nonce design would let anyone grow the database with a loop; here a flood costs
/// CPU only. Single use is the unique record of the nonce's hash written in the same transaction
/// as the session it admits (`Store.createSession`), purged once the nonce has expired anyway.
/// The secret lives in the store, so every instance on one database accepts every nonce.
struct NonceIssuer: Sendable {
    static let lifetime: Int64 = 600
    static let secretName = "nonce-mac-v1"
    private static let randomCount = 32
    private static let expiryEnd = randomCount + 8
    private static let appIDCount = 16
    private static let tagCount = 32

    /// Keyed once: every nonce issued or opened is one HMAC under the same key.
    private let key: KeyedHMAC

    init(secret: [UInt8]) { self.key = KeyedHMAC(key: secret) }

    /// Loads the shared secret from the store, creating it on the first start.
    static func load(from store: any Store) async throws -> NonceIssuer {
        let candidate = SecureRandom.bytes(32)
        return NonceIssuer(secret: try await store.secret(named: secretName, orInsert: candidate))
    }

    /// A new nonce, bound to `appID` when one is given. Assembled in one buffer on the stack:
    /// every `POST /nonces` and every challenge makes one, and arrays for the parts cost
    /// an allocation each.
    func issue(now: Int64, appID: UUID? = nil) -> (nonce: String, expiresAt: Int64) {
        let expiresAt = now + Self.lifetime
        let payloadCount = Self.expiryEnd + (appID == nil ? 0 : Self.appIDCount)
        let nonce = withUnsafeTemporaryAllocation(byteCount: payloadCount + Self.tagCount, alignment: 1) { buffer -> String in
            SecureRandom.fill(UnsafeMutableRawBufferPointer(rebasing: buffer[..<Self.randomCount]))
            withUnsafeBytes(of: UInt64(bitPattern: expiresAt).bigEndian) {
                UnsafeMutableRawBufferPointer(rebasing: buffer[Self.randomCount..<Self.expiryEnd]).copyMemory(from: $0)
            }
            if let appID {
                withUnsafeBytes(of: appID.uuid) {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[Self.expiryEnd..<payloadCount]).copyMemory(from: $0)
                }
            }
            key.write(
                codeOf: UnsafeRawBufferPointer(rebasing: buffer[..<payloadCount]),
                into: UnsafeMutableRawBufferPointer(rebasing: buffer[payloadCount...]))
            return Base64URL.encode(UnsafeRawBufferPointer(buffer))
        }
        return (nonce, expiresAt)
    }

    /// What a genuine nonce proves about itself: the app it admits (any when `nil`), and the use a
    /// session records (its hash, and its expiry, after which the record may go).
    struct Opened: Sendable {
        let appID: UUID?
        let use: ServerNonceUse

        func admits(appID candidate: UUID) -> Bool { appID == nil || appID == candidate }
    }

    /// Returns what the nonce says of itself when it was issued by this server's secret and has
    /// not expired at `now`; whether it was *used* is the store's to say.
    func open(_ nonce: String, now: Int64) -> Opened? {
        let unboundCount = Self.expiryEnd + Self.tagCount
        let boundCount = unboundCount + Self.appIDCount
        let textCount = nonce.utf8.count
        guard textCount == Self.unpaddedBase64Count(unboundCount) || textCount == Self.unpaddedBase64Count(boundCount),
            let bytes = Base64URL.decodeCanonical(nonce), bytes.count == unboundCount || bytes.count == boundCount
        else { return nil }
        let payloadCount = bytes.count - Self.tagCount
        guard
            bytes.withUnsafeBytes({ raw in
                key.isValid(
                    tag: UnsafeRawBufferPointer(rebasing: raw[payloadCount...]),
                    for: UnsafeRawBufferPointer(rebasing: raw[..<payloadCount]))
            })
        else { return nil }
        let expiresAt = Int64(bitPattern: bytes[Self.randomCount..<Self.expiryEnd].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        guard expiresAt > now, expiresAt <= now + Self.lifetime + 60 else { return nil }
        var appID: UUID?
        if payloadCount > Self.expiryEnd {
            let at = Self.expiryEnd
            appID = UUID(
                uuid: (
                    bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3], bytes[at + 4], bytes[at + 5],
                    bytes[at + 6], bytes[at + 7], bytes[at + 8], bytes[at + 9], bytes[at + 10], bytes[at + 11],
                    bytes[at + 12], bytes[at + 13], bytes[at + 14], bytes[at + 15]
                ))
        }
        // Copied as one buffer: `Array(digest)` walks the digest as a sequence of unknown length,
        // growing its array four times on every sign-in.
        return Opened(appID: appID, use: ServerNonceUse(hash: SHA256.hash(data: bytes).withUnsafeBytes { Array($0) }, expiresAt: expiresAt))
    }

    private static func unpaddedBase64Count(_ byteCount: Int) -> Int { (byteCount * 4 + 2) / 3 }
}
