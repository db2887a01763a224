import VouchProtocol

/// Daily keys already derived, by application secret and date.
///
/// Every Sinch token of a day is signed with the same derived key, so deriving it per token (one
/// HMAC, plus keying a second one) would double the cost of the one primitive a verification
/// cannot avoid. The cache holds the keyed HMAC state; it is bounded and starts over when full.
/// A secret that was revoked is never looked up here: the verifier only asks for the key of a
/// secret the context has just answered with.
final class SinchDailyKeys: Sendable {
    /// Beyond this many (secret, day) pairs the cache starts over.
    static let capacity = 1024

    private struct Entry: Hashable {
        let secret: [UInt8]
        let day: Int64

        /// The secret's bytes in one go (an array of bytes hashes byte by byte otherwise).
        func hash(into hasher: inout Hasher) {
            secret.withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(day)
        }
    }

    private let keys = Locked<[Entry: KeyedHMAC]>([:])

    func key(secret: [UInt8], date: CivilDate) -> KeyedHMAC {
        let entry = Entry(secret: secret, day: date.daysSinceEpoch)
        if let cached = keys.withLock({ $0[entry] }) { return cached }
        let derived = KeyedHMAC(key: SinchSigningKey.derive(secret: secret, date: date))
        keys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[entry] = derived
        }
        return derived
    }
}
