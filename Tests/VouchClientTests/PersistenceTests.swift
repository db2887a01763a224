import Foundation
import Testing
import VouchClient
#if canImport(Glibc)
    import Glibc
#endif

/// The session survives a restart; an unreadable store is never mistaken for "signed out".
@Suite struct PersistenceTests {
    @Test func aNewClientInstanceResumesTheSessionFromAPrivateFile() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            try await first.connect(userID: "alice")
            let container = try await first.dataContainer()
            try Data("kept".utf8).write(to: container.appendingPathComponent("cache"))

            let file = SessionFile(bed.scratch)
            #expect(try file.permissions() == 0o600)
            #expect(try file.permissions(bed.scratch.path) == 0o700)

            let second = try bed.client(backend: backend)
            #expect(try await second.authenticatedUser()?.userID == "alice")
            #expect(try await second.currentUserFromServer().user.userID == "alice")
            #expect(try await second.dataContainer() == container)
            #expect(FileManager.default.fileExists(atPath: container.appendingPathComponent("cache").path))
            #expect(backend.callCount == 1)
        }
    }

    /// Issue 39, defect 3 (the spelling of the server's URL): an app update that writes the same
    /// server with a trailing slash, or its default port, keeps everyone signed in.
    @Test func theSameServerSpelledDifferentlyResumesTheSession() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            try await first.connect(userID: "alice")
            let container = try await first.dataContainer()

            let slashed = try #require(URL(string: bed.serverURL.absoluteString + "/"))
            let second = try bed.client(backend: backend, serverURL: slashed)
            #expect(try await second.authenticatedUser()?.userID == "alice")
            #expect(try await second.dataContainer() == container)
            #expect(try await second.currentUserFromServer().user.userID == "alice")
            #expect(backend.callCount == 1, "no new sign-in")
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1)
        }
    }

    @Test func aCorruptFileIsTreatedAsNoSessionReportedAndLeftUntilTheNextSignIn() async throws {
        try await TestBed.run { bed in
            let first = try bed.client(backend: bed.backend())
            try await first.connect(userID: "alice")
            let container = try await first.dataContainer()
            try Data("{\"session_token\": ".utf8).write(to: SessionFile(bed.scratch).url)

            let second = try bed.client()
            #expect(second.currentState == .signedOut)
            let recorder = EventRecorder(second, count: 1)
            #expect(try await second.authenticatedUser() == nil)
            let events = try await recorder.events()
            guard case .storedSessionDiscarded(let reason) = events.first else {
                Issue.record("not reported: \(events)")
                return
            }
            #expect(reason.contains("corrupt"))
            // Reading deletes nothing; the next sign-in replaces the file and removes every other
            // user's data.
            #expect(FileManager.default.fileExists(atPath: SessionFile(bed.scratch).url.path))
            #expect(try await second.requestAuthenticationNonce() != nil)
            let third = try bed.client(backend: bed.backend())
            try await third.connect(userID: "bob")
            #expect(!FileManager.default.fileExists(atPath: container.path))
            #expect(try await bed.client().authenticatedUser()?.userID == "bob")
        }
    }

    @Test func aForeignOwnedFileIsUnavailableNotSignedOut() async throws {
        try await TestBed.run { bed in
            let first = try bed.client(backend: bed.backend())
            try await first.connect(userID: "alice")
            let file = SessionFile(bed.scratch)
            let me = getuid()
            // Root can give the file away; anyone else can make it unreadable. Both must be reported.
            if me == 0 {
                #expect(chown(file.url.path, 65_534, 65_534) == 0)
            } else {
                #expect(chmod(file.url.path, 0) == 0)
            }

            let second = try bed.client()
            #expect(second.currentState == .unknown, "neither signed in nor signed out")
            do {
                _ = try await second.authenticatedUser()
                Issue.record("an unreadable store was taken for a signed-out user")
            } catch let error as VouchClientError {
                guard error.kind == .credentialStoreUnavailable, let message = error.message else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(!message.isEmpty)
            }
            await #expect(throws: VouchClientError.self) { try await second.requestAuthenticationNonce() }
            #expect(file.exists)

            // Once the store is readable again, the user is still signed in.
            if me == 0 { #expect(chown(file.url.path, me, getgid()) == 0) } else { #expect(chmod(file.url.path, 0o600) == 0) }
            #expect(try await second.authenticatedUser()?.userID == "alice")
        }
    }

    /// Issue 39, defect 1: a device clock ahead of the server's must not drop a session the server
    /// still honours (nor leave it live there, nor ask the backend again): the server decides.
    @Test func aSessionTheDeviceThinksExpiredIsKeptWhileTheServerHonoursIt() async throws {
        try await TestBed.run { bed in
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            try await first.connect(userID: "alice")
            let container = try await first.dataContainer()
            let file = SessionFile(bed.scratch)
            var stored = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file.url)) as? [String: Any])
            stored["expires_at"] = "2020-01-01T00:00:00Z"
            try JSONSerialization.data(withJSONObject: stored).write(to: file.url)

            let second = try bed.client(backend: backend)
            #expect(try await second.authenticatedUser()?.userID == "alice")
            #expect(try await second.currentUserFromServer().user.userID == "alice")
            #expect(try await second.dataContainer() == container)
            #expect(backend.callCount == 1, "the backend was not asked again")
            #expect(try await bed.admin.activeSessions(of: "alice", appID: bed.appID) == 1, "no second session")
        }
    }

    /// Issue 39, defect 2: a session that expired while the app was closed keeps the user's data
    /// for the same user's next session (PROTOCOL §8.10), as a running client does.
    @Test func aSessionThatExpiredWhileClosedKeepsTheUsersData() async throws {
        try await TestBed.run { bed in
            // Sessions of 30 s, so that one can expire on the server while tokens minted on this
            // device are still within their lifetime there.
            _ = try await bed.admin.call(
                "PATCH", "admin/apps/\(bed.appID.split(separator: "/").last ?? "")",
                ["session_ttl_seconds": 30], expect: 200)
            let backend = bed.backend()
            let first = try bed.client(backend: backend)
            try await first.connect(userID: "alice")
            let container = try await first.dataContainer()
            try Data("cached messages".utf8).write(to: container.appendingPathComponent("cache"))

            // Closed, and the session's lifetime passes, on the server and by this device's clock.
            bed.serverClockOffset.set(45)
            let file = SessionFile(bed.scratch)
            var stored = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file.url)) as? [String: Any])
            stored["expires_at"] = "2020-01-01T00:00:00Z"
            try JSONSerialization.data(withJSONObject: stored).write(to: file.url)
            let second = try bed.client(backend: backend)
            #expect(FileManager.default.fileExists(atPath: container.appendingPathComponent("cache").path))
            #expect(try await second.currentUserFromServer().user.userID == "alice")
            #expect(backend.callCount == 2, "signed in again through the provider")
            #expect(try await second.dataContainer() == container)
            #expect(try Data(contentsOf: container.appendingPathComponent("cache")) == Data("cached messages".utf8))
        }
    }

    @Test func theSessionFileAndDataContainersArePrivate() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let container = try await client.dataContainer()
            let file = SessionFile(bed.scratch)
            #expect(try file.permissions(container.path) == 0o700)
            #expect(try file.permissions(container.deletingLastPathComponent().path) == 0o700)
            // A directory made too open by someone else is tightened again on the next write.
            #expect(chmod(bed.scratch.path, 0o755) == 0)
            try await client.deauthenticate()
            try await client.connect(userID: "alice")
            #expect(try file.permissions(bed.scratch.path) == 0o700)
            #expect(try file.permissions() == 0o600)
        }
    }

    @Test func aSessionOfAnotherServerIsNotUsed() async throws {
        try await TestBed.run { bed in
            let first = try bed.client(backend: bed.backend())
            try await first.connect(userID: "alice")
            let elsewhere = try bed.client(serverURL: URL(string: "http://127.0.0.1:9")!)
            #expect(try await elsewhere.authenticatedUser() == nil)
        }
    }
}
