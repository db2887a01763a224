import Foundation
import Synchronization
import VouchClient
import VouchTestSupport

/// Collects a stream's elements until `count` have arrived (or a generous deadline).
struct StreamRecorder<Element: Sendable>: Sendable {
    private let task: Task<[Element], Never>

    init(_ stream: AsyncStream<Element>, count: Int) {
        task = Task {
            var seen: [Element] = []
            for await element in stream {
                seen.append(element)
                if seen.count == count { break }
            }
            return seen
        }
    }

    func values(deadlineSeconds: Double = 120) async throws -> [Element] {
        let task = self.task
        return try await withThrowingTaskGroup(of: [Element]?.self) { group in
            group.addTask { await task.value }
            group.addTask {
                try await Task.sleep(for: .seconds(deadlineSeconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            task.cancel()
            guard let first else { throw TestFailure("the expected \(Element.self) values did not arrive within \(deadlineSeconds) s") }
            return first
        }
    }
}

/// A client's events from `events()`.
typealias EventRecorder = StreamRecorder<VouchClientEvent>
/// A client's states from `states()`, the state it was in first.
typealias StateRecorder = StreamRecorder<VouchClientState>

extension StreamRecorder where Element == VouchClientEvent {
    init(_ client: VouchClient, count: Int) { self.init(client.events(), count: count) }
    func events(deadlineSeconds: Double = 120) async throws -> [VouchClientEvent] { try await values(deadlineSeconds: deadlineSeconds) }
}

extension StreamRecorder where Element == VouchClientState {
    init(_ client: VouchClient, count: Int) { self.init(client.states(), count: count) }
    func states(deadlineSeconds: Double = 120) async throws -> [VouchClientState] { try await values(deadlineSeconds: deadlineSeconds) }
}

/// A delegate that records what it is told, in order.
final class RecordingDelegate: VouchClientDelegate {
    private let seen = Mutex<[String]>([])
    let reachedCount: Latch
    private let expected: Int

    init(expecting count: Int) {
        expected = count
        reachedCount = Latch()
    }

    var calls: [String] { seen.withLock { $0 } }

    private func record(_ call: String) {
        let count = seen.withLock {
            $0.append(call)
            return $0.count
        }
        if count >= expected { reachedCount.open() }
    }

    func vouchClient(_ client: VouchClient, didReceiveAuthenticationChallengeWith nonce: String, reason: ChallengeReason) async {
        record("challenge \(reason.rawValue)")
    }
    func vouchClient(_ client: VouchClient, didAuthenticateAs user: Identity) async { record("authenticated \(user.userID)") }
    func vouchClient(_ client: VouchClient, didDeauthenticate userID: String) async { record("deauthenticated \(userID)") }
    func vouchClient(_ client: VouchClient, didDiscardStoredSession reason: String) async { record("discarded") }
}
