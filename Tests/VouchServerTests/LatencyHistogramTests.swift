import Testing
@testable import VouchServer

@Suite("Latency histograms of our own: lock-free recording, the Prometheus text format at a scrape")
struct LatencyHistogramTests {
    private func family() -> LatencyHistogramFamily {
        LatencyHistogramFamily(
            name: "test_duration_seconds",
            upperBounds: [.microseconds(100), .milliseconds(1), .seconds(2.5)])
    }

    private func text(_ family: LatencyHistogramFamily) -> String {
        var buffer: [UInt8] = []
        family.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("a value counts in the first bucket whose bound it does not exceed; buckets print cumulative")
    func buckets() {
        let family = family()
        let series = family.histogram(labels: [("operation", "createSession")])
        series.record(nanoseconds: 100_000)  // exactly the first bound: `le` is "less or equal"
        series.record(nanoseconds: 100_001)
        series.record(.milliseconds(3))
        series.record(.seconds(11))  // above every bound: +Inf only
        series.record(nanoseconds: -5)  // a clock that stepped back: zero
        #expect(
            text(family) == """
                # TYPE test_duration_seconds histogram
                test_duration_seconds_bucket{operation="createSession",le="0.0001"} 2
                test_duration_seconds_bucket{operation="createSession",le="0.001"} 3
                test_duration_seconds_bucket{operation="createSession",le="2.5"} 4
                test_duration_seconds_bucket{operation="createSession",le="+Inf"} 5
                test_duration_seconds_sum{operation="createSession"} 11.003200001
                test_duration_seconds_count{operation="createSession"} 5

                """)
    }

    @Test("one series per label set, made once; escaped label values; nothing printed before any series")
    func series() {
        let family = family()
        #expect(text(family).isEmpty)
        let first = family.histogram(labels: [("route", "/a\"b\\c\nd")])
        #expect(family.histogram(labels: [("route", "/a\"b\\c\nd")]) === first)
        let unlabelled = family.histogram(labels: [])
        unlabelled.record(.seconds(1))
        let printed = text(family)
        #expect(printed.contains(#"test_duration_seconds_count{route="/a\"b\\c\nd"} 0"#), "\(printed)")
        #expect(printed.contains(#"test_duration_seconds_bucket{le="+Inf"} 1"#))
        #expect(printed.contains("test_duration_seconds_sum 1.0\n"))
        #expect(printed.components(separatedBy: "# TYPE").count == 2)
    }

    @Test("seconds print exactly, with no exponent")
    func seconds() {
        #expect(LatencyHistogramFamily.seconds(0) == "0.0")
        #expect(LatencyHistogramFamily.seconds(1) == "0.000000001")
        #expect(LatencyHistogramFamily.seconds(250_000) == "0.00025")
        #expect(LatencyHistogramFamily.seconds(2_500_000_000) == "2.5")
        #expect(LatencyHistogramFamily.seconds(10_000_000_000) == "10.0")
    }

    @Test("a sum that overflows wraps (a scraper sees a reset) rather than stopping the server")
    func overflow() {
        let series = family().histogram(labels: [])
        series.record(nanoseconds: .max)
        series.record(nanoseconds: 2)
        let (cumulative, sum) = series.snapshot()
        #expect(cumulative.last == 2)
        #expect(sum == Int64.min + 1)
        #expect(LatencyHistogramFamily.seconds(sum) == "-9223372036.854775807")
    }

    @Test("values recorded from many tasks at once are all counted")
    func concurrent() async {
        let family = family()
        let series = family.histogram(labels: [])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for value in 0..<10_000 { series.record(nanoseconds: Int64((value + task) % 3 * 500_000)) }
                }
            }
        }
        let (cumulative, sum) = series.snapshot()
        #expect(cumulative == [26_667, 80_000, 80_000, 80_000])
        #expect(sum == (26_667 * 500_000 + 26_666 * 1_000_000))
    }
}
