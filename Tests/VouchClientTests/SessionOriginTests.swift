import Foundation
import Testing
import VouchClient
import VouchTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 39, defect 9: `data(for:)` sends the session only where the app said it may go, and never
/// replaces a header the app set.
@Suite struct SessionOriginTests {
    /// The same server under another origin (`localhost` for `127.0.0.1`): a host the session may
    /// reach only once the app names it.
    static func otherOrigin(of url: URL) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        return try #require(components.url)
    }

    @Test func theSessionGoesOnlyToTheServerAndTheOriginsTheAppNames() async throws {
        try await TestBed.run { bed in
            let elsewhere = try Self.otherOrigin(of: bed.serverURL)
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")

            // The server's own origin.
            let (_, own) = try await client.data(for: URLRequest(url: bed.serverURL.appendingPathComponent("users/me")))
            #expect(own.statusCode == 200)

            // Another origin: refused before anything is sent.
            let refused = await #expect(throws: VouchClientError.self) {
                try await client.data(for: URLRequest(url: elsewhere.appendingPathComponent("users/me")))
            }
            #expect(refused?.kind == .sessionNotAllowed)
            // Plain HTTP to another machine is refused even when the app names it.
            let remote = try bed.client(
                backend: bed.backend(), storage: bed.scratch.appendingPathComponent("remote"),
                sessionOrigins: [try #require(URL(string: "http://chat.example.com"))])
            try await remote.connect(userID: "carol")
            let insecure = await #expect(throws: VouchClientError.self) {
                try await remote.data(for: URLRequest(url: try #require(URL(string: "http://chat.example.com/rooms"))))
            }
            #expect(insecure?.kind == .sessionNotAllowed)

            // Named by the app: the session goes there.
            let trusting = try bed.client(
                backend: bed.backend(), storage: bed.scratch.appendingPathComponent("trusting"), sessionOrigins: [elsewhere])
            try await trusting.connect(userID: "bob")
            let (_, trusted) = try await trusting.data(for: URLRequest(url: elsewhere.appendingPathComponent("users/me")))
            #expect(trusted.statusCode == 200)
        }
    }

    @Test func anAuthorizationTheAppSetIsSentAsItIs() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            var request = URLRequest(url: bed.serverURL.appendingPathComponent("users/me"))
            request.setValue("Layer session-token=\"the-app's-own\"", forHTTPHeaderField: "Authorization")
            let (_, response) = try await client.data(for: request)
            // The server saw the app's header (an unknown session), and the client did not take
            // that answer as a challenge to its own session.
            #expect(response.statusCode == 401)
            #expect(try await client.authenticatedUser()?.userID == "alice")
            #expect(try await client.currentUserFromServer().user.userID == "alice")
        }
    }
}
