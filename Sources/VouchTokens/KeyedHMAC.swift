import Foundation
import Crypto

/// HMAC-SHA256 under one key, keyed once.
///
/// swift-crypto's `HMAC(key:)` pads the key and hashes both pads on every call, with several
/// allocations: for a token-sized message that is more work than authenticating the message
/// itself. A key that authenticates many messages (the server's nonce key, a Sinch app's daily
/// key) keeps the keyed state here, and each message starts from a copy of it.
public struct KeyedHMAC: Sendable {
    private let keyed: HMAC<SHA256>

    public init(key: SymmetricKey) {
        keyed = HMAC<SHA256>(key: key)
    }

    public init(key: [UInt8]) {
        self.init(key: SymmetricKey(data: key))
    }

    public func code(_ message: UnsafeRawBufferPointer) -> HashedAuthenticationCode<SHA256> {
        var authenticator = keyed
        authenticator.update(data: message)
        return authenticator.finalize()
    }

    public func code(_ message: some ContiguousBytes) -> HashedAuthenticationCode<SHA256> {
        message.withUnsafeBytes { code($0) }
    }

    /// Whether `tag` is the code of `message`, compared in constant time (swift-crypto's `==` of a
    /// code with bytes has no early exit).
    public func isValid(tag: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        let expected = code(message)
        return tag.withUnsafeBytes { expected == $0 }
    }
}
