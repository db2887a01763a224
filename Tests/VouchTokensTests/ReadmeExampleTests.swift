import Foundation
import Testing
import VouchProtocol
import VouchTokens

/// The README's `VerificationFactsProvider`, as written there: a third party's own look-ups.
struct MyFacts: VerificationFactsProvider {
    let keys: [UUID: LayerVerificationKey]  // your providers' public keys, by key id
    let boundProviders: Set<UUID>  // providers that may vouch for this app
    let usableNonces: Set<String>  // nonces you issued and nobody used yet

    func facts(for plan: TokenPlan, now: Int64) async throws -> VerificationFacts {
        VerificationFacts(
            layerKey: plan.keyID.flatMap { keys[$0] },
            providerBinding: plan.providerID.map { boundProviders.contains($0) ? .bound : .unknownProvider },
            serverNonce: plan.serverNonce.map { usableNonces.contains($0) ? .usable : .unknown },
            userSuspended: plan.userID.map { _ in false })
    }
}

@Suite("README")
struct ReadmeExampleTests {
    @Test("the README's facts provider verifies a good token and diagnoses a bad one")
    func readmeFactsProvider() async throws {
        let key = LayerVerificationKey(
            id: LayerWorld.keyID, providerID: LayerWorld.providerID, status: .active,
            publicKey: TestKeys.provider.privateKey.publicKey)
        let myFacts = MyFacts(keys: [key.id: key], boundProviders: [LayerWorld.providerID], usableNonces: [LayerWorld.nonce])
        let token = try LayerWorld.token()
        let (appID, now) = (LayerWorld.appID, LayerWorld.now)

        let verified = try await TokenVerifier().verify(token, appID: appID, facts: myFacts, now: now)
        #expect(verified.userID == LayerWorld.userID)

        let stranger = MyFacts(keys: [key.id: key], boundProviders: [], usableNonces: [])
        let diagnosis = try await TokenVerifier().diagnose(token, appID: appID, facts: stranger, now: now)
        #expect(diagnosis.rejections.map(\.reason) == [.providerNotFound, .nonceNotFound])
    }
}
