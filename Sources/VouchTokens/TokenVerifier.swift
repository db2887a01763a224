import Foundation
import VouchProtocol

/// The strict verifier of both token profiles (PROTOCOL §5), in three steps after
/// apple/swift-certificates' `VerifierPolicy`: `plan` reads what the token names, the caller looks
/// up those facts in one go, and `verdict` judges the token against them.
///
/// The verdict does no I/O and reads no clock: the world comes in as `VerificationFacts` and the
/// time as `now`, so the same token gives the same verdict in a test at any instant as in the
/// server.
public struct TokenVerifier: Sendable {
    /// Tolerance for clock skew between the token's minter and the server, for `exp` and `iat`.
    public var leewaySeconds: Int64

    public init(leewaySeconds: Int64 = 60) {
        self.leewaySeconds = leewaySeconds
    }

    /// Daily Sinch keys derived so far, shared by copies of this verifier.
    let sinchDailyKeys = SinchDailyKeys()

    /// Step one: what the token names, for a sign-in to `appID`. Pure, and cheap next to the
    /// signature: it decodes the token once, and the verdict reuses what it decoded.
    public func plan(_ token: String, appID: UUID) -> TokenPlan {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            return TokenPlan(appID: appID, jws: nil, settled: error)
        }
        var plan = TokenPlan(appID: appID, jws: jws, settled: nil)
        switch TokenProfile.select(for: jws.header, claims: jws.claims) {
        case .layer: LayerPolicy.plan(&plan, jws: jws)
        case .sinch: SinchPolicy.plan(&plan, jws: jws)
        case .idToken: IDTokenPolicy.plan(&plan, jws: jws)
        }
        return plan
    }

    /// Step three: the token judged against the facts its plan named.
    ///
    /// - Returns: `.verified` with what the server may act on, or `.rejected` with the first rule
    ///   of §5.4 the token breaks; nothing after that rule is evaluated.
    public func verdict(_ plan: TokenPlan, facts: VerificationFacts, now: Int64) -> TokenVerdict {
        if let settled = plan.settled { return .rejected(settled) }
        guard let jws = plan.jws else { return .rejected(TokenRejection(.wrongJWSPartCount)) }
        var findings = Findings(mode: .firstOnly)
        do throws(Findings.Stop) {
            if let verified = try evaluate(jws, plan: plan, trustingPlan: true, facts: facts, now: now, findings: &findings),
                findings.isEmpty
            {
                return .verified(verified)
            }
        } catch {}
        // Every path that returns no token adds a finding; were one ever missed, an internal
        // inconsistency must still never admit a token.
        return .rejected(findings.ordered.first ?? TokenRejection(.signatureVerificationFailed))
    }

    /// Every broken rule the token's author can be told about, for the validation tool.
    public func diagnose(_ plan: TokenPlan, facts: VerificationFacts, now: Int64) -> TokenDiagnosis {
        guard let jws = plan.jws else {
            return TokenDiagnosis(rejections: plan.settled.map { [$0] } ?? [], header: [:], claims: [:], profile: nil)
        }
        var findings = Findings(mode: .all)
        // `.all` mode never stops at a rule.
        _ = try? evaluate(jws, plan: plan, trustingPlan: false, facts: facts, now: now, findings: &findings)
        return TokenDiagnosis(
            rejections: findings.ordered, header: jws.header.dictionary, claims: jws.claims.dictionary,
            profile: TokenProfile.select(for: jws.header, claims: jws.claims))
    }

    /// - Parameter trustingPlan: the verdict's case: the plan is not settled, so #1–#8 hold and
    ///   are not run again. A diagnosis runs every rule.
    private func evaluate(
        _ jws: CompactJWS, plan: TokenPlan, trustingPlan: Bool, facts: VerificationFacts, now: Int64, findings: inout Findings
    ) throws(Findings.Stop) -> VerifiedToken? {
        let clearedPlan = trustingPlan && plan.settled == nil ? plan : nil
        switch TokenProfile.select(for: jws.header, claims: jws.claims) {
        case .idToken:
            return try IDTokenPolicy(jws: jws, appID: plan.appID, now: now, leeway: leewaySeconds, replayDigest: plan.replayDigest)
                .evaluate(facts, clearedPlan: clearedPlan, findings: &findings)
        case .layer:
            return try LayerPolicy(jws: jws, appID: plan.appID, now: now, leeway: leewaySeconds)
                .evaluate(facts, clearedPlan: clearedPlan, findings: &findings)
        case .sinch:
            return try SinchPolicy(jws: jws, appID: plan.appID, now: now, leeway: leewaySeconds, dailyKeys: sinchDailyKeys)
                .evaluate(facts, plannedUserID: plan.userID, clearedPlan: clearedPlan, findings: &findings)
        }
    }
}

extension TokenVerifier {
    /// The three steps with facts from `provider`, which is not asked for a token that a rule
    /// needing no look-up already settled.
    ///
    /// - Throws: only the provider's own error (which says nothing about the token).
    public func verdict(
        _ token: String, appID: UUID, facts provider: some VerificationFactsProvider,
        now: Int64
    ) async throws -> TokenVerdict {
        let plan = plan(token, appID: appID)
        if plan.settled != nil { return verdict(plan, facts: VerificationFacts(), now: now) }
        return verdict(plan, facts: try await provider.facts(for: plan, now: now), now: now)
    }

    /// `verdict`, with a rejection thrown as the `TokenRejection` it is.
    public func verify(
        _ token: String, appID: UUID, facts provider: some VerificationFactsProvider,
        now: Int64
    ) async throws -> VerifiedToken {
        switch try await verdict(token, appID: appID, facts: provider, now: now) {
        case .verified(let verified): return verified
        case .rejected(let rejection): throw rejection
        }
    }

    /// Every problem at once, with facts from `provider` (asked whenever the token decodes).
    public func diagnose(
        _ token: String, appID: UUID, facts provider: some VerificationFactsProvider,
        now: Int64
    ) async throws -> TokenDiagnosis {
        let plan = plan(token, appID: appID)
        guard plan.jws != nil else { return diagnose(plan, facts: VerificationFacts(), now: now) }
        return diagnose(plan, facts: try await provider.facts(for: plan, now: now), now: now)
    }
}
