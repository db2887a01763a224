import Foundation
import Testing
import VouchClient

/// Events reach the delegate and every `events()` stream, in order.
@Suite struct EventTests {
    @Test func theDelegateAndSeveralStreamsSeeTheSameEventsInOrder() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            let delegate = RecordingDelegate(expecting: 5)
            await client.setDelegate(delegate)
            let first = EventRecorder(client, count: 5)
            let second = EventRecorder(client, count: 5)

            try await client.connect(userID: "alice")
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            _ = try await client.currentUserFromServer()
            try await client.deauthenticate()
            try await client.connect(userID: "bob")  // after a deauthentication: one more event

            let seen = try await first.events()
            #expect(try await second.events() == seen)
            let names = seen.map { event -> String in
                switch event {
                case .authenticationChallenge(_, let reason): "challenge \(reason.rawValue)"
                case .didAuthenticate(let user): "authenticated \(user.userID)"
                case .didDeauthenticate(let userID, _): "deauthenticated \(userID)"
                case .storedSessionDiscarded: "discarded"
                case .liveChannelConnected, .liveChannelDisconnected, .liveChannelChallenge, .liveChannelReauthenticated: "live channel"
                }
            }
            #expect(
                names == [
                    "authenticated alice", "challenge session_revoked",
                    "authenticated alice", "deauthenticated alice", "authenticated bob",
                ])
            try await delegate.reachedCount.wait()
            #expect(delegate.calls == names)
            withExtendedLifetime(delegate) {}
        }
    }
}
