import Synchronization

/// A latency histogram that the hot path records into without taking a lock.
///
/// swift-prometheus's `Histogram` takes a lock for every value and adds one to every bucket at or
/// above it, which both threads of the pool contend for on every sign-in (docs/PERFORMANCE.md, "The
/// request path"). Here a value adds one to the single bucket it falls in and to the sum, each an
/// atomic add, and the buckets are made cumulative only when `/metrics` is read, which is rare.
///
/// A scrape that races a recording may see that value's bucket without its sum, or the reverse:
/// off by one request in a counter the scraper only ever looks at in rates. The buckets it
/// prints are still cumulative and end at the `_count` it prints, because both come from one
/// read of each bucket.
final class LatencyHistogram: Sendable {
    /// The labels of this series, rendered once (`name="value",…`).
    let renderedLabels: String
    /// Upper bounds of the buckets, in nanoseconds, ascending; values above the last are counted
    /// in one more bucket, `+Inf`.
    let upperBounds: [Int64]
    private let buckets: [Cell]
    private let sumNanoseconds = Atomic<Int64>(0)

    init(renderedLabels: String, upperBounds: [Int64]) {
        self.renderedLabels = renderedLabels
        self.upperBounds = upperBounds
        self.buckets = (0...upperBounds.count).map { _ in Cell() }
    }

    /// Records one duration; a negative one (a clock that stepped back) counts as zero.
    func record(nanoseconds: Int64) {
        let value = max(0, nanoseconds)
        // Thirteen to sixteen bounds, most values in the first few: a scan beats a binary search.
        var index = 0
        while index < upperBounds.count, value > upperBounds[index] { index += 1 }
        // Wrapping, never trapping: a metric must not be able to stop the server (the sum would
        // need ~290 years of summed latency to wrap; a scraper reads a wrap as a counter reset).
        buckets[index].count.wrappingAdd(1, ordering: .relaxed)
        sumNanoseconds.wrappingAdd(value, ordering: .relaxed)
    }

    func record(_ duration: Duration) {
        record(nanoseconds: duration.nanoseconds)
    }

    /// What a scrape prints: the cumulative count at each bound (the last is `+Inf`, the total),
    /// and the sum of every value recorded.
    func snapshot() -> (cumulative: [Int], sumNanoseconds: Int64) {
        var running = 0
        let cumulative = buckets.map { cell in
            running += cell.count.load(ordering: .relaxed)
            return running
        }
        return (cumulative, sumNanoseconds.load(ordering: .relaxed))
    }

    /// One bucket's count on its own allocation, as `Atomic` must be a stored `let` of a class.
    private final class Cell: Sendable {
        let count = Atomic<Int>(0)
    }
}
