import Foundation
import Testing
@testable import VouchProtocol

@Suite("RFC 3339 timestamps")
struct TimestampTests {
    @Test("written digit by digit, the same text as Foundation's ISO 8601 style: boundaries and leap days")
    func boundaries() {
        let days: [Int64] = [0, 58, 59, 60, 365, 789, 10_956, 10_957, 11_016, 11_017, 47_541, 47_542, 2_932_896]
        var times: [Int64] = [Timestamp.latestFourDigitYearTime, Timestamp.latestFourDigitYearTime - 1, 1_700_000_000]
        for day in days { times += [day * 86_400, day * 86_400 + 86_399, day * 86_400 + 3_661] }
        for time in times where (0...Timestamp.latestFourDigitYearTime).contains(time) {
            #expect(Timestamp.rfc3339(time) == Timestamp.foundationRFC3339(time), "\(time)")
        }
        #expect(Timestamp.rfc3339(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(Timestamp.rfc3339(4_107_542_400) == "2100-03-01T00:00:00Z")
        #expect(Timestamp.rfc3339(Timestamp.latestFourDigitYearTime) == "9999-12-31T23:59:59Z")
    }

    @Test("random times from 1970 to 9999, and outside that range Foundation's text as before")
    func random() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let time = Int64.random(in: 0...Timestamp.latestFourDigitYearTime, using: &generator)
            #expect(Timestamp.rfc3339(time) == Timestamp.foundationRFC3339(time), "\(time)")
            #expect(Timestamp.parse(Timestamp.rfc3339(time)) == time)
        }
        for time: Int64 in [-1, -86_400, Timestamp.latestFourDigitYearTime + 1] {
            #expect(Timestamp.rfc3339(time) == Timestamp.foundationRFC3339(time))
        }
    }
}
