import Foundation
import Testing
import VouchTestSupport
@testable import VouchTokens

@Suite("Sinch daily keys")
struct SinchDailyKeysTests {
    static let message = Array("header.claims".utf8)

    /// The code a freshly derived key gives, for comparison with the cache's.
    static func expected(secret: [UInt8], date: CivilDate) -> [UInt8] {
        KeyedHMAC(key: SinchSigningKey.derive(secret: secret, date: date)).code(message)
    }

    @Test("the cache hands out the key of the secret and day asked for, whatever was asked before")
    func rightKeyInAnyOrder() {
        let keys = SinchDailyKeys()
        var generator = SeededGenerator(seed: 0x5EED_DA11)
        // Secrets that differ in one byte only, and days either side: the comparison of the latest
        // entry must look at every byte and at the day.
        let base = (0..<32).map { UInt8($0) }
        var secrets = [base]
        for position in [0, 15, 31] {
            var other = base
            other[position] ^= 0x01
            secrets.append(other)
        }
        secrets.append(Array(base.prefix(16)))
        let days = [CivilDate(daysSinceEpoch: 20_000), CivilDate(daysSinceEpoch: 20_001), CivilDate(daysSinceEpoch: 20_002)]
        for _ in 0..<300 {
            let secret = secrets.randomElement(using: &generator) ?? base
            let date = days.randomElement(using: &generator) ?? days[0]
            #expect(keys.key(secret: secret, date: date).code(Self.message) == Self.expected(secret: secret, date: date))
        }
    }

    @Test("past its capacity the cache starts over and still answers right")
    func startsOverWhenFull() {
        let keys = SinchDailyKeys()
        let date = CivilDate(daysSinceEpoch: 20_000)
        let first = Array(repeating: UInt8(7), count: 32)
        let firstCode = Self.expected(secret: first, date: date)
        #expect(keys.key(secret: first, date: date).code(Self.message) == firstCode)
        for index in 0..<(SinchDailyKeys.capacity + 5) {
            let secret = withUnsafeBytes(of: UInt64(index).bigEndian) { Array($0) } + Array(repeating: 1, count: 24)
            _ = keys.key(secret: secret, date: date)
        }
        #expect(keys.key(secret: first, date: date).code(Self.message) == firstCode)
    }
}
