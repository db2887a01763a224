import Crypto
import Foundation
import Testing
import VouchTokens

@Suite("KeyedHMAC")
struct KeyedHMACTests {
    @Test("agrees with swift-crypto's HMAC-SHA256 for keys shorter than, equal to and longer than a block")
    func agreesWithSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        for keyLength in [0, 1, 16, 32, 63, 64, 65, 100, 131] {
            let key = (0..<keyLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let keyed = KeyedHMAC(key: key)
            for messageLength in [0, 1, 55, 56, 64, 200, 1000] {
                let message = (0..<messageLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let reference = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
                #expect(keyed.code(message) == reference, "key \(keyLength) bytes, message \(messageLength) bytes")
                var written = [UInt8](repeating: 0xAA, count: 40)
                message.withUnsafeBytes { message in
                    written.withUnsafeMutableBytes { keyed.write(codeOf: message, into: $0) }
                }
                #expect(
                    Array(written.prefix(32)) == reference && written.suffix(8).allSatisfy { $0 == 0xAA },
                    "written in place: the code, and nothing past it")
                #expect(keyed.isValid(tag: reference, for: message))
                var wrong = reference
                wrong[messageLength % 32] ^= 0x01
                #expect(!keyed.isValid(tag: wrong, for: message))
                #expect(!keyed.isValid(tag: Array(reference.prefix(31)), for: message))
            }
        }
    }

    @Test("RFC 4231 test case 2")
    func rfc4231() {
        let keyed = KeyedHMAC(key: Array("Jefe".utf8))
        let code = keyed.code(Array("what do ya want for nothing?".utf8))
        #expect(
            code.map { String(format: "%02x", $0) }.joined()
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
