import Foundation

/// RFC 3339 UTC timestamps, the format of every `*_at` field on the wire.
public enum Timestamp {
    /// Formats Unix seconds as `2026-11-21T16:27:04Z`.
    ///
    /// Every answer carries one or two of these, so the years 1970…9999 are written digit by digit
    /// (the civil date by Howard Hinnant's `civil_from_days`); any other time goes through
    /// Foundation's ISO 8601 style, which writes the same text for these years (a test holds them
    /// to each other).
    public static func rfc3339(_ unixSeconds: Int64) -> String {
        guard (0...latestFourDigitYearTime).contains(unixSeconds) else { return foundationRFC3339(unixSeconds) }
        let days = unixSeconds / 86_400, secondOfDay = Int(unixSeconds % 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        return String(unsafeUninitializedCapacity: 20) { output in
            func put(_ value: Int, at offset: Int, digits: Int) {
                var rest = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    output[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(year, at: 0, digits: 4)
            output[4] = UInt8(ascii: "-")
            put(month, at: 5, digits: 2)
            output[7] = UInt8(ascii: "-")
            put(day, at: 8, digits: 2)
            output[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, at: 11, digits: 2)
            output[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, at: 14, digits: 2)
            output[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, at: 17, digits: 2)
            output[19] = UInt8(ascii: "Z")
            return 20
        }
    }

    /// 9999-12-31T23:59:59Z.
    static let latestFourDigitYearTime: Int64 = 253_402_300_799

    static func foundationRFC3339(_ unixSeconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(unixSeconds)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (days ≥ 0).
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    /// Parses what `rfc3339(_:)` writes (whole seconds, `Z`).
    public static func parse(_ text: String) -> Int64? {
        guard let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text) else {
            return nil
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
