import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// Issue 39, defects 3 and 7: storage shared by several clients.
@Suite struct SharedStorageTests {
    /// Defect 7: after A's `deauthenticate()`, B (same storage, same user loaded) answers its next
    /// challenge; the session it opens must not be persisted, or the user is back at next launch.
    @Test func aSecondClientCannotBringBackASessionTheFirstSignedOut() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            try await first.connect(userID: "alice")
            let second = try bed.client(backend: backend)
            #expect(second.currentUser?.userID == "alice")

            try await first.deauthenticate()
            // B's session is the one A ended: B is challenged, answers, and must step aside.
            await #expect(throws: VouchClientError.self) { try await second.currentUserFromServer() }
            #expect(second.currentState == .signedOut)
            #expect(try bed.client().currentUser == nil, "signed in again at the next launch")
            // The session B opened and dropped is ended on the server (in the background).
            var active = try await bed.admin.activeSessions(of: "alice", appID: bed.appID)
            for _ in 0..<600 where active > 0 {
                try await Task.sleep(for: .milliseconds(50))
                active = try await bed.admin.activeSessions(of: "alice", appID: bed.appID)
            }
            #expect(active == 0)
        }
    }

    /// And the other way round: B's challenge must not sign out the user A signed in meanwhile.
    @Test func aSecondClientsChallengeLeavesTheUserTheFirstSignedInSince() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            try await first.connect(userID: "alice")
            let second = try bed.client(backend: backend)
            try await first.deauthenticate()
            try await first.connect(userID: "bob")
            let bobsData = try await first.dataContainer()
            // B's session is over; B answers the challenge for alice, and must step aside.
            await #expect(throws: VouchClientError.self) { try await second.currentUserFromServer() }
            #expect(second.currentUser?.userID == "bob", "B takes the store's word")
            #expect(try bed.client().currentUser?.userID == "bob")
            #expect(FileManager.default.fileExists(atPath: bobsData.path), "bob's data survives B's answer")
        }
    }

    /// Defect 3: a client for another app on the same storage directory (default store) neither
    /// uses nor deletes the first app's session and data.
    @Test func anotherAppsClientOnTheSameDirectoryLeavesTheFirstAppsSessionAlone() async throws {
        try await TestBed.run { bed in
            let directory = bed.scratch.appendingPathComponent("shared")
            let first = try VouchClient(
                serverURL: bed.serverURL, appID: bed.appID,
                configuration: .init(storageDirectory: directory, identityTokenProvider: bed.backend().identityTokenProvider))
            try await first.connect(userID: "alice")
            let container = try await first.dataContainer()

            let other = try VouchClient(
                serverURL: bed.serverURL, appID: "layer:///apps/\(UUID().uuidString)",
                configuration: .init(storageDirectory: directory))
            let events = EventRecorder(other, count: 1)
            #expect(try await other.authenticatedUser() == nil)
            _ = try await other.deauthenticate()
            await #expect(throws: TestFailure.self) { try await events.events(deadlineSeconds: 0.5) }

            let relaunched = try VouchClient(serverURL: bed.serverURL, appID: bed.appID, configuration: .init(storageDirectory: directory))
            #expect(relaunched.currentUser?.userID == "alice")
            #expect(try await relaunched.dataContainer() == container)
            #expect(FileManager.default.fileExists(atPath: container.path))
        }
    }
}
