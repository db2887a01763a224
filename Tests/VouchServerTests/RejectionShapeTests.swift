import Foundation
import Testing
import VouchProtocol
import VouchStore
import VouchTokens
@testable import VouchServer

/// Defect 10: one rejection, one shape. A suspension is reported with the claim that names the
/// user whether it was in place before the sign-in began or landed between the verification and
/// the session's transaction. (A sign-in's verification does not read the suspension: the
/// transaction decides both; the validation tool's policy does, with the same claim.)
@Suite("Rejections have one shape, whatever the timing")
struct RejectionShapeTests {
    @Test("a suspension that lands during a sign-in carries the same data as one in place before it")
    func suspensionShape() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let appID = try #require(LayerID.parseApp(fixture.appID))
            let app = try #require(try await server.store.app(id: appID))

            // Suspended before the sign-in starts.
            _ = try await server.store.setSuspended(appID: appID, userID: "early", suspended: true, now: server.clock.now)
            let early = try await fixture.signIn(
                try fixture.layerToken(
                    claims: fixture.layerClaims(user: "early", nonce: try await server.nonce(), now: server.clock.now)))
            #expect(early.data["reason"] as? String == "eit_user_suspended")

            // The suspension lands after verification, before the transaction.
            let store = InterleavingStore(base: server.store) { session in
                _ = try await server.store.setSuspended(
                    appID: session.appID, userID: session.userID, suspended: true,
                    now: server.clock.now)
            }
            let authenticator = Authenticator(
                store: store, verifier: TokenVerifier(leewaySeconds: 60),
                nonces: try await NonceIssuer.load(from: store), clock: server.clock.closure)
            let token = try fixture.layerToken(
                claims: fixture.layerClaims(user: "late", nonce: try await server.nonce(), now: server.clock.now))
            guard case .refused(let refusal, let serverTime) = try await authenticator.signIn(identityToken: token, appID: app.id) else {
                Issue.record("the sign-in was not refused")
                return
            }
            let rejection = APIError.rejectedToken(refusal, serverTime: serverTime)
            #expect(rejection.body.data?["reason"] == .string("eit_user_suspended"))
            #expect(rejection.body.data?["claim"] == .string("prn"))
            #expect(
                rejection.body.data?["claim"] == early.data["claim"].flatMap { ($0 as? String).map(JSONValue.string) },
                "both paths name the same claim")
            #expect(Set(rejection.body.data?.keys.map { $0 } ?? []) == Set(early.data.keys), "both paths carry the same members")
        }
    }
}
