import Foundation
import Testing
import VouchProtocol
import VouchTokens

/// The verdict as a value, the claim lookups asked once, and what the context learned about the
/// nonce carried into the verified token.
@Suite("Verdicts")
struct VerdictTests {
    /// A world that answers the claim lookups in one call and records each call.
    struct OneCallContext: VerificationContext {
        var base: TestContext
        let asked = CallLog()
        let plans = CallLog()
        let nonceUse = ServerNonceUse(hash: Array(repeating: 7, count: 32), expiresAt: LayerWorld.now + 600)

        func prepare(_ plan: LookupPlan) async throws {
            #expect(asked.all.isEmpty, "the plan comes before the look-ups it announces")
            let subject = plan.applicationKey.map { "app-key \($0.lowercased)" } ?? plan.layerKeyID?.lowercased ?? "-"
            plans.record("\(subject) \(plan.claims.providerID?.lowercased ?? "-") "
                         + "\(plan.claims.serverNonce ?? "-") \(plan.claims.userID ?? "-")")
        }
        func layerKey(id: UUID) async throws -> LayerVerificationKey? {
            asked.record("key \(id.lowercased)")
            return try await base.layerKey(id: id)
        }
        func providerBinding(providerID: UUID, appID: UUID) async throws -> ProviderBinding { Issue.record("asked alone"); return .bound }
        func isNonceUsable(_ nonce: String, now: Int64) async throws -> Bool { Issue.record("asked alone"); return true }
        func registrationSecret(applicationKey: UUID) async throws -> RegistrationSecret? {
            try await base.registrationSecret(applicationKey: applicationKey)
        }
        func isRegistrationNonceSeen(appID: UUID, nonce: String, now: Int64) async throws -> Bool { Issue.record("asked alone"); return false }
        func isUserSuspended(appID: UUID, userID: String) async throws -> Bool { Issue.record("asked alone"); return false }

        func claimStanding(_ questions: ClaimQuestions, now: Int64) async throws -> ClaimStanding {
            asked.record("\(questions.providerID?.lowercased ?? "-") \(questions.serverNonce ?? "-") "
                         + "\(questions.registrationNonce?.nonce ?? "-") \(questions.userID ?? "-")")
            return ClaimStanding(
                providerBinding: questions.providerID.map { _ in .bound },
                serverNonce: questions.serverNonce.map { _ in .usable },
                serverNonceUse: questions.serverNonce.map { _ in nonceUse },
                registrationNonceSeen: questions.registrationNonce.map { _ in false },
                userSuspended: questions.userID.map { _ in false })
        }
    }

    @Test("a Layer sign-in asks the claim lookups once, and the verified token carries the opened nonce")
    func layerAsksOnce() async throws {
        let context = OneCallContext(base: LayerWorld.context())
        let verdict = try await TokenVerifier().verdict(try LayerWorld.token(), appID: LayerWorld.appID, context: context, now: LayerWorld.now)
        guard case .verified(let token) = verdict else { Issue.record("not verified: \(verdict)"); return }
        #expect(token.serverNonceUse == context.nonceUse)
        #expect(context.asked.all == ["key \(LayerWorld.keyID.lowercased)",
                                      "\(LayerWorld.providerID.lowercased) \(LayerWorld.nonce) - \(LayerWorld.userID)"])
        // Everything looked up was announced first, so a store can read it in one operation.
        #expect(context.plans.all == ["\(LayerWorld.keyID.lowercased) \(LayerWorld.providerID.lowercased) "
                                      + "\(LayerWorld.nonce) \(LayerWorld.userID)"])
    }

    @Test("the plan is what the token says; the questions are what the rules let through")
    func planIsUnverified() async throws {
        let context = OneCallContext(base: LayerWorld.context())
        let otherProvider = UUID()
        var claims = LayerWorld.claims()
        claims["iss"] = jsonString(LayerID.provider(otherProvider))
        let verdict = try await TokenVerifier().verdict(try LayerWorld.token(claims: claims), appID: LayerWorld.appID,
                                                        context: context, now: LayerWorld.now)
        #expect(verdict == .rejected(TokenRejection(.providerNotFound, claim: "iss")))
        #expect(context.plans.all == ["\(LayerWorld.keyID.lowercased) \(otherProvider.lowercased) \(LayerWorld.nonce) \(LayerWorld.userID)"])
        // The verdict stops at #16: the provider the plan named is never asked about.
        #expect(context.asked.all == ["key \(LayerWorld.keyID.lowercased)"])
    }

    @Test("a Sinch sign-in asks the claim lookups once, for the secret's app")
    func sinchAsksOnce() async throws {
        let context = OneCallContext(base: SinchWorld.context())
        let verdict = try await TokenVerifier().verdict(try SinchWorld.token(), appID: SinchWorld.appID, context: context, now: SinchWorld.now)
        guard case .verified(let token) = verdict else { Issue.record("not verified: \(verdict)"); return }
        #expect(token.serverNonceUse == nil)
        #expect(context.asked.all.count == 1)
        #expect(context.asked.all.first?.hasPrefix("- - ") == true)
        // Announced first: the application key's secret, and the same user the claims are asked about.
        #expect(context.plans.all.count == 1)
        #expect(context.plans.all.first?.hasPrefix("app-key \(SinchWorld.applicationKey.lowercased) ") == true)
        #expect(context.plans.all.first?.hasSuffix(" " + (context.asked.all.first?.split(separator: " ").last.map(String.init) ?? "?")) == true)
    }

    @Test("a rejection is a value, not a throw; a bad signature asks nothing of the claims")
    func rejectionIsAValue() async throws {
        let context = OneCallContext(base: LayerWorld.context())
        let forged = try LayerWorld.token(key: TestKeys.attacker.privateKey)
        let verdict = try await TokenVerifier().verdict(forged, appID: LayerWorld.appID, context: context, now: LayerWorld.now)
        #expect(verdict == .rejected(TokenRejection(.signatureVerificationFailed)))
        #expect(context.asked.all == ["key \(LayerWorld.keyID.lowercased)"])

        let garbage = try await TokenVerifier().verdict("not.a-token", appID: LayerWorld.appID, context: context, now: LayerWorld.now)
        #expect(garbage == .rejected(TokenRejection(.wrongJWSPartCount)))
    }

    @Test("a token past its lifetime is rejected after the lookups that rank before the time rules")
    func expiredAfterLookups() async throws {
        let context = OneCallContext(base: LayerWorld.context())
        let verdict = try await TokenVerifier().verdict(try LayerWorld.token(), appID: LayerWorld.appID, context: context,
                                                        now: LayerWorld.now + 24 * 3600)
        #expect(verdict == .rejected(TokenRejection(.expired, claim: "exp")))
    }
}
