import Foundation
import VouchProtocol
import VouchTokens

/// An in-memory world for measuring the verifier alone, with no database behind it.
struct BenchmarkFacts: VerificationFactsProvider {
    let key: LayerVerificationKey
    let appID: UUID
    let secret: RegistrationSecret

    func facts(for plan: TokenPlan, now: Int64) async throws -> VerificationFacts {
        VerificationFacts(
            layerKey: plan.keyID == key.id ? key : nil,
            providerBinding: plan.providerID.map { $0 == key.providerID && plan.appID == appID ? .bound : .notBound },
            serverNonce: plan.serverNonce.map { _ in .usable },
            registrationSecret: plan.applicationKey == secret.applicationKey ? secret : nil,
            registrationNonceSeen: plan.registrationNonce.map { _ in false },
            userSuspended: plan.userID.map { _ in false })
    }
}
