/// A UTC calendar date, as used by the Sinch profile's `kid` (`hkdfv1-YYYYMMDD`).
///
/// Day arithmetic is done on days since 1970-01-01 (Howard Hinnant's civil-from-days algorithm),
/// so the "yesterday, today or tomorrow" rule compares calendar dates exactly, at 00:30 as at
/// 12:00 UTC, with no time zone database involved.
public struct CivilDate: Sendable, Equatable, Comparable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Whole days since 1970-01-01.
    public let daysSinceEpoch: Int64

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...Self.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.daysSinceEpoch = Self.days(year: year, month: month, day: day)
    }

    /// The UTC date of a Unix time in seconds.
    public init(unixSeconds: Int64) {
        // Floor division without the `- 86_399` that would overflow near Int64.min.
        let (quotient, remainder) = unixSeconds.quotientAndRemainder(dividingBy: 86_400)
        self.init(daysSinceEpoch: remainder < 0 ? quotient - 1 : quotient)
    }

    /// Only for day counts that come from Unix seconds (|days| < 2^47), where no step can overflow.
    init(daysSinceEpoch: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        self.year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        self.month = Int(month)
        self.day = Int(day)
        self.daysSinceEpoch = daysSinceEpoch
    }

    /// Parses exactly eight ASCII digits `YYYYMMDD` naming a real date.
    public init?(compact text: some StringProtocol) {
        guard
            let date = text.utf8.withContiguousStorageIfAvailable(Self.init(compactUTF8:))
                ?? Array(text.utf8).withUnsafeBufferPointer(Self.init(compactUTF8:))
        else { return nil }
        self = date
    }

    /// The same over bytes where they lie (a Sinch `kid` after its prefix): no string is made.
    init?(compactUTF8 digits: UnsafeBufferPointer<UInt8>) {
        guard digits.count == 8, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int {
            digits[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        self.init(year: number(0..<4), month: number(4..<6), day: number(6..<8))
    }

    /// `YYYYMMDD`.
    public var compact: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return pad(year, 4) + pad(month, 2) + pad(day, 2)
    }

    public var description: String { compact }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    private static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
