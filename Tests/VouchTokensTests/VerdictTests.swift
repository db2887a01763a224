import Foundation
import Testing
import VouchProtocol
import VouchTokens

/// The three steps as values: the plan is what the token says, the facts are looked up once, the
/// verdict is a pure function of the plan, the facts and the time.
@Suite("Verdicts")
struct VerdictTests {
    /// Facts in which `LayerWorld.token()` verifies, answered for whatever the plan names.
    static func layerFacts(_ plan: TokenPlan) -> VerificationFacts {
        VerificationFacts(
            layerKey: plan.keyID == LayerWorld.keyID
                ? LayerVerificationKey(
                    id: LayerWorld.keyID, providerID: LayerWorld.providerID, status: .active,
                    publicKey: TestKeys.provider.privateKey.publicKey) : nil,
            providerBinding: plan.providerID.map { _ in .bound },
            serverNonce: plan.serverNonce.map { _ in .usable })
    }

    @Test("a Layer plan names the key, the provider, the nonce and the user as the token says them")
    func layerPlan() throws {
        let plan = TokenVerifier().plan(try LayerWorld.token(), appID: LayerWorld.appID)
        #expect(plan.settled == nil)
        #expect(plan.profile == .layer)
        #expect(plan.appID == LayerWorld.appID)
        #expect(plan.keyID == LayerWorld.keyID)
        #expect(plan.providerID == LayerWorld.providerID)
        #expect(plan.serverNonce == LayerWorld.nonce)
        #expect(plan.userID == LayerWorld.userID)
        #expect(plan.applicationKey == nil && plan.registrationNonce == nil)
    }

    @Test("a Sinch plan names the application key, the nonce and the user id inside `sub`")
    func sinchPlan() throws {
        let plan = TokenVerifier().plan(try SinchWorld.token(), appID: SinchWorld.appID)
        #expect(plan.settled == nil)
        #expect(plan.profile == .sinch)
        #expect(plan.applicationKey == SinchWorld.applicationKey)
        #expect(plan.registrationNonce == SinchWorld.nonce)
        #expect(plan.userID == "foo")
        #expect(plan.keyID == nil && plan.providerID == nil && plan.serverNonce == nil)
    }

    @Test("the plan is what the token says; the verdict believes `iss` only as the key's provider")
    func planIsUnverified() throws {
        let otherProvider = UUID()
        var claims = LayerWorld.claims()
        claims["iss"] = jsonString(LayerID.provider(otherProvider))
        let verifier = TokenVerifier()
        let plan = verifier.plan(try LayerWorld.token(claims: claims), appID: LayerWorld.appID)
        #expect(plan.providerID == otherProvider)
        // Even with facts that call the named provider bound, it is not the key's.
        #expect(
            verifier.verdict(plan, facts: Self.layerFacts(plan), now: LayerWorld.now)
                == .rejected(TokenRejection(.providerNotFound, claim: "iss")))
    }

    @Test("a token that breaks a rule needing no look-up is settled by its plan")
    func settledPlans() throws {
        let verifier = TokenVerifier()
        let garbage = verifier.plan("not.a-token", appID: LayerWorld.appID)
        #expect(garbage.settled == TokenRejection(.wrongJWSPartCount))
        #expect(garbage.profile == nil && garbage.keyID == nil)
        #expect(verifier.verdict(garbage, facts: VerificationFacts(), now: LayerWorld.now) == .rejected(TokenRejection(.wrongJWSPartCount)))

        var header = LayerWorld.header()
        header["alg"] = jsonString("none")
        let none = verifier.plan(try LayerWorld.token(header: header), appID: LayerWorld.appID)
        #expect(none.settled?.reason == .headerParamWrongValue)
        // Named all the same, for the validation tool, which reports every rule.
        #expect(none.keyID == LayerWorld.keyID)
        #expect(verifier.verdict(none, facts: Self.layerFacts(none), now: LayerWorld.now) == .rejected(try #require(none.settled)))
        #expect(verifier.diagnose(none, facts: Self.layerFacts(none), now: LayerWorld.now).rejections.map(\.reason) == [.headerParamWrongValue])

        let badKid = verifier.plan(try LayerWorld.token(header: LayerWorld.header(kid: "layer:///keys/nope")), appID: LayerWorld.appID)
        #expect(badKid.settled == TokenRejection(.keyMalformed, param: "kid"))
        #expect(badKid.keyID == nil)

        var sinchClaims = SinchWorld.claims()
        sinchClaims["iss"] = jsonString("//rtc.sinch.com/applications/not-a-key")
        let sinch = verifier.plan(try SinchWorld.token(claims: sinchClaims), appID: SinchWorld.appID)
        #expect(sinch.settled?.reason == .keyNotFound)
        #expect(sinch.applicationKey == nil)
    }

    @Test("the verdict is a value and a pure function: the same plan, facts and time give the same answer")
    func verdictIsPure() throws {
        let verifier = TokenVerifier()
        let plan = verifier.plan(try LayerWorld.token(), appID: LayerWorld.appID)
        let facts = Self.layerFacts(plan)
        let first = verifier.verdict(plan, facts: facts, now: LayerWorld.now)
        guard case .verified(let token) = first else {
            Issue.record("not verified: \(first)")
            return
        }
        #expect(token.userID == LayerWorld.userID && token.keyID == LayerWorld.keyID && token.providerID == LayerWorld.providerID)
        #expect(verifier.verdict(plan, facts: facts, now: LayerWorld.now) == first)

        // The same plan against other facts, and another time.
        var used = facts
        used.serverNonce = .used
        #expect(verifier.verdict(plan, facts: used, now: LayerWorld.now) == .rejected(TokenProfile.layer.usedNonceRejection))
        var elsewhere = facts
        elsewhere.serverNonce = .boundToAnotherApp
        guard case .rejected(let bound) = verifier.verdict(plan, facts: elsewhere, now: LayerWorld.now) else {
            Issue.record("another app's nonce was accepted")
            return
        }
        #expect(bound.reason == .nonceNotFound && bound.claim == "nce" && bound.hint != nil)
        #expect(
            verifier.verdict(plan, facts: facts, now: LayerWorld.now + 24 * 3600)
                == .rejected(TokenRejection(.expired, claim: "exp")))
        // A fact about another key than the one named is no fact about this token.
        var otherKey = facts
        otherKey.layerKey?.id = UUID()
        #expect(verifier.verdict(plan, facts: otherKey, now: LayerWorld.now) == .rejected(TokenRejection(.keyNotFound, param: "kid")))
    }

    @Test("a forged signature is a rejected value")
    func rejectionIsAValue() throws {
        let verifier = TokenVerifier()
        let plan = verifier.plan(try LayerWorld.token(key: TestKeys.attacker.privateKey), appID: LayerWorld.appID)
        #expect(
            verifier.verdict(plan, facts: Self.layerFacts(plan), now: LayerWorld.now)
                == .rejected(TokenRejection(.signatureVerificationFailed)))
    }

    @Test("a provider is asked once per token, and never for a settled one")
    func providerAskedOnce() async throws {
        let context = LayerWorld.context()
        _ = try await TokenVerifier().verify(try LayerWorld.token(), appID: LayerWorld.appID, facts: context, now: LayerWorld.now)
        #expect(context.log.all == ["facts"])
        let settled = LayerWorld.context()
        let verdict = try await TokenVerifier().verdict("a.b.c.d", appID: LayerWorld.appID, facts: settled, now: LayerWorld.now)
        #expect(verdict == .rejected(TokenRejection(.wrongJWSPartCount)))
        #expect(settled.log.all.isEmpty)
    }

    @Test("#21–#23 name the profile's own claims, on every path that refuses them")
    func profileClaimNames() {
        #expect(TokenProfile.layer.usedNonceRejection == TokenRejection(.nonceNotFound, claim: "nce"))
        #expect(TokenProfile.sinch.usedNonceRejection == TokenRejection(.nonceReplayed, claim: "nonce"))
        #expect(TokenProfile.layer.suspendedUserRejection == TokenRejection(.userSuspended, claim: "prn"))
        #expect(TokenProfile.sinch.suspendedUserRejection == TokenRejection(.userSuspended, claim: "sub"))
    }
}
