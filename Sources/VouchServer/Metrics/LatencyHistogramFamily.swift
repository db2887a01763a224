import Synchronization

/// Every series of one latency histogram metric (one name, one set of bucket bounds), and their
/// text exposition: the part of `/metrics` that the Prometheus registry does not write, because
/// these histograms are ours (`LatencyHistogram`).
///
/// A series is made once per label set and kept by its caller (`MetricHandles`, the store's
/// timers); making one is the only step that takes this family's lock.
final class LatencyHistogramFamily: Sendable {
    let name: String
    let upperBounds: [Int64]
    private let series = Mutex<[String: LatencyHistogram]>([:])

    /// - Parameter upperBounds: the buckets' upper bounds, ascending.
    init(name: String, upperBounds: [Duration]) {
        self.name = name
        self.upperBounds = upperBounds.map(\.nanoseconds)
    }

    /// The series for `labels`, made on first use. Label values are the server's own (route
    /// patterns, methods, operation names), escaped all the same.
    func histogram(labels: [(String, String)]) -> LatencyHistogram {
        let rendered = labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }.joined(separator: ",")
        return series.withLock { series in
            if let existing = series[rendered] { return existing }
            let made = LatencyHistogram(renderedLabels: rendered, upperBounds: upperBounds)
            series[rendered] = made
            return made
        }
    }

    /// Appends the family in the Prometheus text format (version 0.0.4): its `TYPE` line, then
    /// per series the cumulative buckets, `+Inf`, `_sum` in seconds and `_count`. Nothing when no
    /// series was made yet, as the registry does for its own metrics.
    func emit(into buffer: inout [UInt8]) {
        let all = series.withLock { $0.values.sorted { $0.renderedLabels < $1.renderedLabels } }
        guard !all.isEmpty else { return }
        var text = "# TYPE \(name) histogram\n"
        for histogram in all {
            let (cumulative, sum) = histogram.snapshot()
            let prefix = histogram.renderedLabels.isEmpty ? "" : histogram.renderedLabels + ","
            for (bound, count) in zip(upperBounds, cumulative) {
                text += "\(name)_bucket{\(prefix)le=\"\(Self.seconds(bound))\"} \(count)\n"
            }
            let total = cumulative.last ?? 0
            text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(total)\n"
            let braces = histogram.renderedLabels.isEmpty ? "" : "{\(histogram.renderedLabels)}"
            text += "\(name)_sum\(braces) \(Self.seconds(sum))\n"
            text += "\(name)_count\(braces) \(total)\n"
        }
        buffer.append(contentsOf: text.utf8)
    }

    /// Nanoseconds as decimal seconds with no exponent and no trailing zeros beyond one
    /// (`0.0001`, `2.5`, `1.0`): exact, where a `Double`'s description would print `1e-04`.
    static func seconds(_ nanoseconds: Int64) -> String {
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        let whole = magnitude / 1_000_000_000
        var fraction = String(magnitude % 1_000_000_000)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(whole).\(fraction)"
    }

    /// A label value as the text format wants it: backslash, double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
