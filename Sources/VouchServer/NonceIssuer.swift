import Crypto
import Foundation
import VouchStore
import VouchTokens

/// Server nonces that carry their own proof, so issuing one writes nothing.
///
/// A nonce is `base64url(32 random bytes ‖ expiry (8 bytes, big-endian Unix seconds) ‖
/// HMAC-SHA256(server secret, the first 40 bytes))`. `POST /nonces` is unauthenticated, so a
/// stored-per-nonce design would let anyone grow the database with a loop; here a flood costs
/// CPU only. Single use is the unique record of the nonce's hash written in the same transaction
/// as the session it admits (`Store.createSession`), purged once the nonce has expired anyway.
/// The secret lives in the store, so every instance on one database accepts every nonce.
struct NonceIssuer: Sendable {
    static let lifetime: Int64 = 600
    static let secretName = "nonce-mac-v1"
    private static let randomCount = 32
    private static let payloadCount = randomCount + 8
    private static let encodedCount = payloadCount + 32

    private let key: SymmetricKey

    init(secret: [UInt8]) { self.key = SymmetricKey(data: secret) }

    /// Loads the shared secret from the store, creating it on the first start.
    static func load(from store: any Store) async throws -> NonceIssuer {
        let candidate = SecureRandom.bytes(32)
        return NonceIssuer(secret: try await store.secret(named: secretName, orInsert: candidate))
    }

    func issue(now: Int64) -> (nonce: String, expiresAt: Int64) {
        let expiresAt = now + Self.lifetime
        var payload = SecureRandom.bytes(Self.randomCount)
        withUnsafeBytes(of: UInt64(bitPattern: expiresAt).bigEndian) { payload.append(contentsOf: $0) }
        let tag = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return (Base64URL.encode(payload + Array(tag)), expiresAt)
    }

    /// What a genuine nonce proves about itself: its expiry and the hash its use is recorded under.
    struct Opened: Sendable {
        let expiresAt: Int64
        let hash: [UInt8]
    }

    /// Returns the nonce's expiry and hash when it was issued by this server's secret and has not
    /// expired at `now`; whether it was *used* is the store's to say.
    func open(_ nonce: String, now: Int64) -> Opened? {
        guard nonce.utf8.count == (Self.encodedCount * 4 + 2) / 3,
              let bytes = Base64URL.decodeCanonical(nonce), bytes.count == Self.encodedCount else { return nil }
        let payload = bytes[..<Self.payloadCount]
        let tag = bytes[Self.payloadCount...]
        guard HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: payload, using: key) else { return nil }
        let expiresAt = Int64(bitPattern: payload[Self.randomCount...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        guard expiresAt > now, expiresAt <= now + Self.lifetime + 60 else { return nil }
        return Opened(expiresAt: expiresAt, hash: Array(SHA256.hash(data: bytes)))
    }
}
