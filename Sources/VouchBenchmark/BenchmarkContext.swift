import Foundation
import VouchProtocol
import VouchTokens

/// An in-memory world for measuring the verifier alone, with no database behind it.
struct BenchmarkContext: VerificationContext {
    let key: LayerVerificationKey
    let appID: UUID
    let secret: RegistrationSecret

    func layerKey(id: UUID) async throws -> LayerVerificationKey? { id == key.id ? key : nil }
    func providerBinding(providerID: UUID, appID: UUID) async throws -> ProviderBinding {
        providerID == key.providerID && appID == self.appID ? .bound : .notBound
    }
    func isNonceUsable(_ nonce: String, now: Int64) async throws -> Bool { true }
    func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecret? {
        applicationKey == secret.applicationKey ? secret : nil
    }
    func isRegistrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool { false }
    func isUserSuspended(appID: UUID, userID: String) async throws -> Bool { false }
    /// As the server's context does: every claim lookup in one call.
    func claimStanding(_ questions: ClaimQuestions, now: Int64) async throws -> ClaimStanding {
        ClaimStanding(
            providerBinding: questions.providerID.map { $0 == key.providerID && questions.appID == appID ? .bound : .notBound },
            serverNonce: questions.serverNonce.map { _ in .usable },
            registrationNonceSeen: questions.registrationNonce.map { _ in false },
            userSuspended: questions.userID.map { _ in false })
    }
}
