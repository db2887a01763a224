import Foundation
import Synchronization
import _CryptoExtras

/// Public keys already parsed from their PEM, by key id.
///
/// Parsing a PEM into an RSA key is a measurable part of a sign-in, and a provider signs with the
/// same key for months. The key's row is still read from the store on every sign-in (its status
/// may have changed through any instance a moment ago); only the parse is reused, and only while
/// the stored PEM is the one that was parsed, so the cache can never answer with stale state.
final class ParsedKeyCache: Sendable {
    /// Beyond this many keys the cache starts over: bounded memory whatever the number of keys.
    static let capacity = 1024

    private let keys = Mutex<[UUID: (pem: String, key: _RSA.Signing.PublicKey)]>([:])

    /// The parsed key for `pem`, parsing it (and remembering the result) when it is not cached.
    func key(id: UUID, pem: String) throws -> _RSA.Signing.PublicKey {
        if let cached = keys.withLock({ $0[id] }), cached.pem == pem { return cached.key }
        let parsed = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        keys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[id] = (pem, parsed)
        }
        return parsed
    }
}
