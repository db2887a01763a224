import Foundation
import Synchronization

/// Unix time in the test's hands: the verifier reads it, the test moves it.
final class TestClock: Sendable {
    private let seconds: Mutex<Double>

    init(_ start: Double = 1_800_000_000) {
        seconds = Mutex(start)
    }

    var now: Double { seconds.withLock { $0 } }

    var closure: @Sendable () -> Double { { [self] in now } }

    func advance(by interval: Double) {
        seconds.withLock { $0 += interval }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Waits until `condition` holds, polling; fails after a generous minute (a wait, not a timing).
func eventually(_ what: String, _ condition: @Sendable () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}
