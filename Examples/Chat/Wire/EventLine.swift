import Foundation
import Synchronization

/// One line of what a chat program saw, stamped: `12:00:01.234` for a person, or Unix
/// milliseconds (`1764457201234`) for a script that measures the time from its own action.
public final class EventLine: Sendable {
    /// Unix milliseconds instead of the wall clock.
    public let unixStamps: Bool
    /// Lines written from several tasks never interleave.
    private let output = Mutex(())

    public init(unixStamps: Bool) { self.unixStamps = unixStamps }

    /// Prints `<stamp> <topic>: <text>` to standard output at once (a script reads it live).
    public func print(_ topic: String, _ text: String) {
        let line = "\(stamp(Date())) \(topic): \(text)\n"
        output.withLock { _ in FileHandle.standardOutput.write(Data(line.utf8)) }
    }

    func stamp(_ date: Date) -> String {
        if unixStamps { return String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down))) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let parts = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
        let milliseconds = (parts.nanosecond ?? 0) / 1_000_000
        return String(format: "%02d:%02d:%02d.%03d", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, milliseconds)
    }
}
