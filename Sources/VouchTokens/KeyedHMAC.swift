import Crypto
import Foundation

/// HMAC-SHA256 (RFC 2104) under one key, keyed once.
///
/// swift-crypto's `HMAC(key:)` pads the key and hashes both pads on every call, with several
/// allocations, and its `update` goes through the generic `DataProtocol` path: for a token-sized
/// message that is more work than authenticating the message itself. A key that authenticates
/// many messages (the server's nonce key, a Sinch app's daily key) keeps the two keyed SHA-256
/// states here; each message starts from copies of them and feeds raw buffers. The Wycheproof
/// HMAC vectors run through this code (`HS256.isValid`).
public struct KeyedHMAC: Sendable {
    private static let blockSize = 64

    /// SHA-256 after `key ⊕ ipad` and after `key ⊕ opad`.
    private let inner: SHA256
    private let outer: SHA256

    public init(key: [UInt8]) {
        // A key longer than the block is replaced by its hash; a shorter one is padded with zeros.
        var block = key.count > Self.blockSize ? Array(SHA256.hash(data: key)) : key
        block.append(contentsOf: repeatElement(0, count: Self.blockSize - block.count))
        var inner = SHA256()
        var outer = SHA256()
        block.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update(bufferPointer: $0) }
        block.map { $0 ^ 0x5C }.withUnsafeBytes { outer.update(bufferPointer: $0) }
        self.inner = inner
        self.outer = outer
    }

    public init(key: SymmetricKey) {
        self.init(key: key.withUnsafeBytes { Array($0) })
    }

    /// The 32-byte code of `message`.
    public func code(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        digest(message).withUnsafeBytes { Array($0) }
    }

    /// The 32-byte code of `message`, written into the first 32 bytes of `output` (for a caller
    /// that assembles message and code in one buffer).
    public func write(codeOf message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= SHA256.byteCount, "the code is 32 bytes")
        digest(message).withUnsafeBytes { output.copyMemory(from: $0) }
    }

    private func digest(_ message: UnsafeRawBufferPointer) -> SHA256.Digest {
        var inner = self.inner
        inner.update(bufferPointer: message)
        var outer = self.outer
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize()
    }

    public func code(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { code($0) }
    }

    /// Whether `tag` is the code of `message`, compared in constant time: every byte is looked
    /// at whatever the first difference, so the time taken says nothing about where it was.
    public func isValid(tag: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        digest(message).withUnsafeBytes { expected in
            guard tag.count == expected.count else { return false }
            var difference: UInt8 = 0
            for index in 0..<expected.count { difference |= expected[index] ^ tag[index] }
            return difference == 0
        }
    }

    public func isValid(tag: [UInt8], for message: [UInt8]) -> Bool {
        tag.withUnsafeBytes { tag in message.withUnsafeBytes { isValid(tag: tag, for: $0) } }
    }
}
