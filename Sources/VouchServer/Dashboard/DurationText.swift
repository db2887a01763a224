/// Durations as the dashboard shows them and reads them back.
///
/// Shown: in the largest unit the value is a whole number of, while that takes fewer than 100 of
/// it ("30 days", "1 hour", "90 minutes", "36 hours"); otherwise days, hours, minutes and seconds
/// together, largest first and zero parts left out ("1 day 2 hours 5 minutes").
///
/// Read: a plain number of seconds ("3600"), or numbers each followed by a unit, every unit at
/// most once ("30d", "12h", "90m", "45s", "30 days", "1h 30m", "1 day 2 hours 5 minutes"): so
/// whatever is shown can be typed back. Units are `d`, `day(s)`, `h`, `hr(s)`, `hour(s)`, `m`,
/// `min(s)`, `minute(s)`, `s`, `sec(s)`, `second(s)`, in any case.
enum DurationText {
    private static let units: [(seconds: Int64, name: String)] = [(86_400, "day"), (3600, "hour"), (60, "minute"), (1, "second")]

    private static let unitNames: [String: Int64] = [
        "d": 86_400, "day": 86_400, "days": 86_400,
        "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
        "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
        "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    ]

    /// What the dashboard accepts, for its error messages.
    static let examples = "such as 30d, 12h, 90m, 45s or 30 days (a plain number is seconds)"

    static func format(_ seconds: Int64) -> String {
        guard seconds > 0 else { return count(seconds, "second") }
        if let unit = units.first(where: { seconds % $0.seconds == 0 }), seconds / unit.seconds < 100 {
            return count(seconds / unit.seconds, unit.name)
        }
        var rest = seconds
        var parts: [String] = []
        for unit in units where rest >= unit.seconds {
            parts.append(count(rest / unit.seconds, unit.name))
            rest %= unit.seconds
        }
        return parts.joined(separator: " ")
    }

    private static func count(_ value: Int64, _ name: String) -> String {
        value == 1 ? "1 \(name)" : "\(value) \(name)s"
    }

    /// The seconds `text` names, or nil when it is not a duration (no sign, no fraction, no
    /// unit twice, nothing over `Int64.max`).
    static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.lowercased().utf8)
        var index = 0
        func skipSpaces() { while index < bytes.count, bytes[index] == UInt8(ascii: " ") { index += 1 } }
        func take(_ belongs: (UInt8) -> Bool) -> String {
            let start = index
            while index < bytes.count, belongs(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
        skipSpaces()
        var total: Int64 = 0
        var seen: Set<Int64> = []
        while index < bytes.count {
            guard let number = Int64(take { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            skipSpaces()
            let name = take { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
            if name.isEmpty, seen.isEmpty, index == bytes.count { return number }  // a plain number: seconds
            guard let unit = unitNames[name], seen.insert(unit).inserted else { return nil }
            let (part, overflow) = number.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            let (sum, overflowed) = total.addingReportingOverflow(part)
            guard !overflowed else { return nil }
            total = sum
            skipSpaces()
        }
        return seen.isEmpty ? nil : total
    }
}
