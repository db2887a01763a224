import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// PROTOCOL §8.16 from the SDK: access tokens for the app's other services.
@Suite struct AccessTokenTests {
    @Test func anAccessTokenIsMintedForTheSessionAndReusedUntilItNearsItsExpiry() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let first = try await client.accessToken()
            #expect(first.audience == String(bed.appID.split(separator: "/").last ?? ""))
            #expect(first.expiresAt.timeIntervalSinceNow > 200 && first.expiresAt.timeIntervalSinceNow <= 301)
            #expect(first.value.split(separator: ".").count == 3)
            let again = try await client.accessToken()
            #expect(again == first, "reused from memory while fresh")

            _ = try await bed.admin.call("PATCH", "admin/apps/\(bed.appID.split(separator: "/").last ?? "")", ["audiences": ["chat"]], expect: 200)
            let chat = try await client.accessToken(for: "chat")
            #expect(chat.audience == "chat" && chat.value != first.value)
            do {
                _ = try await client.accessToken(for: "billing")
                Issue.record("an unregistered audience was minted")
            } catch let error as VouchClientError {
                #expect(error.status == 422)
            }
        }
    }

    @Test func aNewSessionNeverReusesTheOldOnesToken() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")
            let before = try await client.accessToken()
            // An operator's revocation: the next request answers the challenge with a new session.
            try await bed.admin.revokeSessions(of: "alice", appID: bed.appID)
            _ = try await client.currentUserFromServer()
            let after = try await client.accessToken()
            #expect(after.value != before.value)
            try await client.deauthenticate()
            do {
                _ = try await client.accessToken()
                Issue.record("a signed-out client minted an access token")
            } catch let error as VouchClientError {
                #expect(error.kind == .notAuthenticated)
            }
        }
    }
}
