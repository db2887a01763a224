import Foundation
import Synchronization
import VouchClient
import VouchTestSupport

/// Collects a client's events from `events()` until `count` have arrived (or a generous deadline).
struct EventRecorder: Sendable {
    private let task: Task<[VouchClientEvent], Never>

    init(_ client: VouchClient, count: Int) {
        let stream = client.events()
        task = Task {
            var seen: [VouchClientEvent] = []
            for await event in stream {
                seen.append(event)
                if seen.count == count { break }
            }
            return seen
        }
    }

    func events(deadlineSeconds: Double = 120) async throws -> [VouchClientEvent] {
        let task = self.task
        return try await withThrowingTaskGroup(of: [VouchClientEvent]?.self) { group in
            group.addTask { await task.value }
            group.addTask {
                try await Task.sleep(for: .seconds(deadlineSeconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            task.cancel()
            guard let first else { throw TestFailure("the expected events did not arrive within \(deadlineSeconds) s") }
            return first
        }
    }
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
