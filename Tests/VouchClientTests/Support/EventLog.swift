import Foundation
import VouchClient
import VouchTestSupport

/// Every event a client emits from the moment the log is made, for tests that wait for one event
/// among others whose number depends on timing (the live channel's).
final class EventLog: Sendable {
    private let seen = Shared<[VouchClientEvent]>([])
    private let task: Task<Void, Never>

    init(_ client: VouchClient) {
        let stream = client.events()
        let seen = self.seen
        task = Task {
            for await event in stream { seen.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    var events: [VouchClientEvent] { seen.withLock { $0 } }

    /// The events about the live channel, in order.
    var liveEvents: [VouchClientEvent] { events.filter(\.isLiveChannelEvent) }

    /// Waits until an event matches `predicate` and returns it (the first that does).
    @discardableResult
    func first(
        within seconds: Double = 30, _ what: String = "the expected event", where predicate: (VouchClientEvent) -> Bool
    ) async throws -> VouchClientEvent {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let match = events.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("\(what) did not arrive within \(seconds) s; events: \(events)")
    }

    /// Waits for the `count`-th `liveChannelConnected`.
    func connected(_ count: Int = 1, within seconds: Double = 30) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if events.filter(\.isConnected).count >= count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestFailure("the live channel did not connect \(count) time(s) within \(seconds) s; events: \(events)")
    }
}

extension VouchClientEvent {
    var isLiveChannelEvent: Bool {
        switch self {
        case .liveChannelConnected, .liveChannelDisconnected, .liveChannelChallenge, .liveChannelReauthenticated: true
        default: false
        }
    }

    var isConnected: Bool {
        if case .liveChannelConnected = self { return true }
        return false
    }

    var disconnection: LiveChannelDisconnection? {
        if case .liveChannelDisconnected(let disconnection) = self { return disconnection }
        return nil
    }
}
