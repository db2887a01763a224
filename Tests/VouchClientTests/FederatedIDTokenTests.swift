import Foundation
import Testing
import VouchClient
import VouchKeySourceTestSupport
import VouchProtocol
import VouchTestSupport
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// PROTOCOL §8.18 through the SDK: a federated provider's ID tokens sign in with
/// `authenticate(federatedIDToken:)`, and an identity-token provider that answers with fresh ID
/// tokens answers challenges.
@Suite("Federated ID tokens through the SDK", .timeLimit(.minutes(3)))
struct FederatedIDTokenTests {
    /// An OpenID provider's ID tokens for the app's client, each with its own `jti`.
    struct IdentityProvider: Sendable {
        let key: PublishedKey
        let issuer: String
        let minted = Shared(0)

        func idToken(for user: String) throws -> String {
            minted.withLock { $0 += 1 }
            let now = Int64(Date().timeIntervalSince1970)
            return try key.sign(
                header: ["alg": "RS256", "kid": key.kid, "typ": "JWT"],
                claims: ["iss": issuer, "sub": user, "aud": "app-client", "iat": now, "exp": now + 600, "jti": UUID().uuidString])
        }
    }

    @Test(
        "authenticate(federatedIDToken:) signs the token's sub in; the same token elsewhere is eit_token_replayed; a challenge is answered with a fresh ID token"
    )
    func federatedSignIn() async throws {
        try await JWKSServer.run { jwks in
            try await TestBed.run { bed in
                let key = try PublishedKey.rsa("idp-1", index: 0)
                jwks.publish([key])
                let created = try await bed.admin.call(
                    "POST", "admin/providers", ["name": "IdP", "issuer": jwks.baseURL, "client_id": "app-client", "federated": true])
                let providerID = try created.string("id").split(separator: "/").last.map(String.init) ?? ""
                let appID = bed.appID.split(separator: "/").last.map(String.init) ?? ""
                _ = try await bed.admin.call("PUT", "admin/providers/\(providerID)/apps/\(appID)", expect: 204)
                let identityProvider = IdentityProvider(key: key, issuer: jwks.baseURL)

                let client = try VouchClient(
                    serverURL: bed.serverURL, appID: bed.appID,
                    configuration: .init(
                        storageDirectory: bed.scratch, credentialStore: FileCredentialStore(directory: bed.scratch),
                        identityTokenProvider: { userID, _ in try identityProvider.idToken(for: userID) }, liveChannel: false))
                let token = try identityProvider.idToken(for: "ada")
                let identity = try await client.authenticate(federatedIDToken: token)
                #expect(identity.userID == "ada")

                let elsewhere = bed.scratch.appendingPathComponent("other-device")
                let other = try VouchClient(
                    serverURL: bed.serverURL, appID: bed.appID,
                    configuration: .init(storageDirectory: elsewhere, credentialStore: FileCredentialStore(directory: elsewhere), liveChannel: false))
                do throws(VouchClientError) {
                    _ = try await other.authenticate(federatedIDToken: token)
                    Issue.record("a used ID token signed in again")
                } catch {
                    #expect(error.tokenRejection?.knownReason == .tokenReplayed, "\(error)")
                }

                // An operator revokes her sessions: the next request is challenged, the provider
                // answers with a fresh ID token (the nonce unused), and the request goes through.
                try await bed.admin.revokeSessions(of: "ada", appID: bed.appID)
                let before = identityProvider.minted.value
                let (_, response) = try await client.data(for: URLRequest(url: bed.serverURL.appendingPathComponent("users/me")))
                #expect(response.statusCode == 200)
                #expect(identityProvider.minted.value == before + 1)
                #expect(try await client.authenticatedUser()?.userID == "ada")
            }
        }
    }
}
