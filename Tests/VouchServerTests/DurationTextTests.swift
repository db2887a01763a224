import Testing
@testable import VouchServer

@Suite("DurationText: the dashboard's durations")
struct DurationTextTests {
    @Test(
        "shown in the largest whole unit while under 100 of it, else days, hours, minutes and seconds",
        arguments: [
            (0, "0 seconds"), (1, "1 second"), (45, "45 seconds"), (60, "1 minute"), (99, "99 seconds"),
            (125, "2 minutes 5 seconds"), (3600, "1 hour"), (5400, "90 minutes"), (6000, "1 hour 40 minutes"),
            (7200, "2 hours"), (86_400, "1 day"), (93_600, "26 hours"), (93_900, "1 day 2 hours 5 minutes"),
            (90_061, "1 day 1 hour 1 minute 1 second"), (2_592_000, "30 days"), (31_536_000, "365 days"),
        ] as [(Int64, String)])
    func format(_ seconds: Int64, _ text: String) {
        #expect(DurationText.format(seconds) == text)
        #expect(DurationText.seconds(text) == seconds, "what is shown reads back")
    }

    @Test(
        "read with units, in short or long form and any case, or as plain seconds",
        arguments: [
            ("30d", 2_592_000), ("12h", 43_200), ("90m", 5400), ("45s", 45), ("3600", 3600), ("0", 0),
            ("30 days", 2_592_000), ("1 day", 86_400), ("2 Hours", 7200), ("1h 30m", 5400), ("1h30m", 5400),
            ("  5 min  ", 300), ("10 secs", 10), ("3 hrs", 10_800), ("1D 2H 3M 4S", 93_784), ("2m 1d", 86_520),
        ] as [(String, Int64)])
    func parse(_ text: String, _ seconds: Int64) {
        #expect(DurationText.seconds(text) == seconds)
    }

    @Test(
        "anything else is not a duration",
        arguments: [
            "", " ", "soon", "h", "30 fortnights", "12h12h", "1 hour 2 hours", "-5m", "+5m", "1.5h", "1,5h",
            "1 day 30", "30 d ays", "1e3", "9223372036854775808", "106751991167301d", "9223372036854775807s 1m",
            "5\tm", "５m",
        ])
    func refused(_ text: String) {
        #expect(DurationText.seconds(text) == nil, "\(text.debugDescription)")
    }
}
