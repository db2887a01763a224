import Crypto
import Synchronization

/// The tokens verified lately, by the SHA-256 of their text: a token presented again costs a hash
/// and a look-up instead of an ECDSA verification.
///
/// Holds the verified facts only; the caller still checks `exp` and the endings on every hit, so a
/// cached token is never accepted past its expiry or after its session ended. Bounded: when full,
/// the entry inserted first goes (tokens live at most 300 s, so it is also about the first to
/// expire), in constant time. A lock, not an actor: a hit is a few hundred nanoseconds of work,
/// less than an actor hop.
final class VerificationCache: Sendable {
    /// The SHA-256 of a token as four words: hashed and compared faster than the digest type.
    struct Key: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init(_ digest: SHA256.Digest) {
            words = digest.withUnsafeBytes { bytes in
                (
                    bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                    bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                )
            }
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.words == rhs.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    private struct Storage: Sendable {
        var entries: [Key: VerifiedAccessToken] = [:]
        /// Keys in insertion order, a ring: `order[next]` is the oldest once the ring is full.
        var order: [Key] = []
        var next = 0
    }

    let capacity: Int
    private let storage = Mutex(Storage())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func lookup(_ key: Key) -> VerifiedAccessToken? {
        storage.withLock { $0.entries[key] }
    }

    func insert(_ token: VerifiedAccessToken, for key: Key) {
        storage.withLock { storage in
            if storage.order.count < capacity {
                storage.order.append(key)
            } else {
                // The oldest key may have been removed already (expired on a hit) or inserted again
                // since; either way removing it keeps the table within `capacity`.
                storage.entries[storage.order[storage.next]] = nil
                storage.order[storage.next] = key
                storage.next = (storage.next + 1) % capacity
            }
            storage.entries[key] = token
        }
    }

    func remove(_ key: Key) {
        storage.withLock { $0.entries[key] = nil }
    }

    var count: Int { storage.withLock { $0.entries.count } }
}
