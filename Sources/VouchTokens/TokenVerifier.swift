import Foundation
import VouchProtocol

/// The strict verifier of both token profiles (PROTOCOL §5).
///
/// It does no I/O and reads no clock: the world comes in through a `VerificationContext` and the
/// time through `now`, so the same token gives the same verdict in a test at any instant as in
/// the server.
public struct TokenVerifier: Sendable {
    /// Tolerance for clock skew between the token's minter and the server, for `exp` and `iat`.
    public var leewaySeconds: Int64

    public init(leewaySeconds: Int64 = 60) {
        self.leewaySeconds = leewaySeconds
    }

    /// Daily Sinch keys derived so far, shared by copies of this verifier.
    let sinchDailyKeys = SinchDailyKeys()

    /// Judges a token for a sign-in to `appID`.
    ///
    /// - Returns: `.verified` with what the server may act on, or `.rejected` with the first rule
    ///   of §5.4 the token breaks; nothing after that rule is evaluated.
    /// - Throws: only the context's own error when a lookup failed (which says nothing about the
    ///   token).
    public func verdict(_ token: String, appID: UUID, context: some VerificationContext, now: Int64) async throws -> TokenVerdict {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            return .rejected(error)
        }
        var findings = Findings(mode: .firstOnly)
        do throws(Findings.Stop) {
            if let verified = try await evaluate(jws, appID: appID, context: context, now: now, findings: &findings),
               findings.isEmpty {
                return .verified(verified)
            }
        } catch {
            if case .lookupFailed(let failure) = error { throw failure }
        }
        // Every path that returns no token adds a finding; were one ever missed, an internal
        // inconsistency must still never admit a token.
        return .rejected(findings.ordered.first ?? TokenRejection(.signatureVerificationFailed))
    }

    /// `verdict`, with a rejection thrown as the `TokenRejection` it is.
    public func verify(_ token: String, appID: UUID, context: some VerificationContext, now: Int64) async throws -> VerifiedToken {
        switch try await verdict(token, appID: appID, context: context, now: now) {
        case .verified(let verified): return verified
        case .rejected(let rejection): throw rejection
        }
    }

    /// Every broken rule the token's author can be told about, for the validation tool; never
    /// consumes anything (the context is only asked, as in `verify`).
    public func diagnose(_ token: String, appID: UUID, context: some VerificationContext, now: Int64) async throws -> TokenDiagnosis {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: token)
        } catch {
            return TokenDiagnosis(rejections: [error], header: [:], claims: [:], profile: nil)
        }
        var findings = Findings(mode: .all)
        do throws(Findings.Stop) {
            _ = try await evaluate(jws, appID: appID, context: context, now: now, findings: &findings)
        } catch {
            // `.all` mode never stops at a rule; only a failed lookup ends it.
            if case .lookupFailed(let failure) = error { throw failure }
        }
        return TokenDiagnosis(rejections: findings.ordered, header: jws.header.dictionary, claims: jws.claims.dictionary,
                              profile: TokenProfile.select(for: jws.header))
    }

    private func evaluate(_ jws: CompactJWS, appID: UUID, context: some VerificationContext, now: Int64,
                          findings: inout Findings) async throws(Findings.Stop) -> VerifiedToken? {
        switch TokenProfile.select(for: jws.header) {
        case .layer:
            try await LayerPolicy(jws: jws, appID: appID, now: now, leeway: leewaySeconds)
                .evaluate(context: context, findings: &findings)
        case .sinch:
            try await SinchPolicy(jws: jws, appID: appID, now: now, leeway: leewaySeconds, dailyKeys: sinchDailyKeys)
                .evaluate(context: context, findings: &findings)
        }
    }
}
