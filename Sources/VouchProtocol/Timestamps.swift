import Foundation

/// RFC 3339 UTC timestamps, the format of every `*_at` field on the wire.
public enum Timestamp {
    /// Formats Unix seconds as `2026-11-21T16:27:04Z`.
    public static func rfc3339(_ unixSeconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(unixSeconds))
        return date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }

    /// Parses what `rfc3339(_:)` writes (whole seconds, `Z`).
    public static func parse(_ text: String) -> Int64? {
        guard let date = try? Date.ISO8601FormatStyle(timeZone: .gmt).parse(text) else {
            return nil
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }
}
