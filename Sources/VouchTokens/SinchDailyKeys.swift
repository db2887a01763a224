import Synchronization
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

        /// Secrets compared in constant time, as secrets are everywhere else.
        static func == (lhs: Entry, rhs: Entry) -> Bool {
            guard lhs.day == rhs.day, lhs.secret.count == rhs.secret.count else { return false }
            var difference: UInt8 = 0
            for index in lhs.secret.indices { difference |= lhs.secret[index] ^ rhs.secret[index] }
            return difference == 0
        }
    }

    private struct Keys {
        var byEntry: [Entry: KeyedHMAC] = [:]
        /// The key handed out last: a sign-in storm is mostly one app on one day, whose key is then
        /// found by one comparison instead of hashing the secret.
        var latest: (entry: Entry, key: KeyedHMAC)?
    }

    private let keys = Mutex(Keys())

    func key(secret: [UInt8], date: CivilDate) -> KeyedHMAC {
        let entry = Entry(secret: secret, day: date.daysSinceEpoch)
        let cached = keys.withLock { keys -> KeyedHMAC? in
            if let latest = keys.latest, latest.entry == entry { return latest.key }
            guard let found = keys.byEntry[entry] else { return nil }
            keys.latest = (entry, found)
            return found
        }
        if let cached { return cached }
        let derived = KeyedHMAC(key: SinchSigningKey.derive(secret: secret, date: date))
        keys.withLock { keys in
            if keys.byEntry.count >= Self.capacity { keys.byEntry.removeAll(keepingCapacity: true) }
            keys.byEntry[entry] = derived
            keys.latest = (entry, derived)
        }
        return derived
    }
}
