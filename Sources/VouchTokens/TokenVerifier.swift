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

    /// Verifies a token for a sign-in to `appID`.
    ///
    /// - Returns: the verified token.
    /// - Throws: `TokenRejection` with the first rule of §5.4 the token breaks, or the context's
    ///   own error when a lookup failed (which says nothing about the token).
    public func verify(_ token: String, appID: UUID, context: some VerificationContext, now: Int64) async throws -> VerifiedToken {
        var findings = Findings(mode: .firstOnly)
        let verified: VerifiedToken?
        do {
            let jws = try CompactJWS(parsing: token)
            verified = try await evaluate(jws, appID: appID, context: context, now: now, findings: &findings)
        } catch let rejection as TokenRejection {
            throw rejection
        } catch is Findings.Stop {
            verified = nil
        }
        if let first = findings.ordered.first { throw first }
        guard let verified else {
            // Unreachable by construction (every path that returns no token adds a finding); an
            // internal inconsistency must still never admit a token.
            throw TokenRejection(.signatureVerificationFailed)
        }
        return verified
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
        _ = try await evaluate(jws, appID: appID, context: context, now: now, findings: &findings)
        return TokenDiagnosis(rejections: findings.ordered, header: jws.header, claims: jws.claims,
                              profile: TokenProfile.select(for: jws.header))
    }

    private func evaluate(_ jws: CompactJWS, appID: UUID, context: some VerificationContext, now: Int64,
                          findings: inout Findings) async throws -> VerifiedToken? {
        switch TokenProfile.select(for: jws.header) {
        case .layer:
            try await LayerPolicy(jws: jws, appID: appID, now: now, leeway: leewaySeconds)
                .evaluate(context: context, findings: &findings)
        case .sinch:
            try await SinchPolicy(jws: jws, appID: appID, now: now, leeway: leewaySeconds)
                .evaluate(context: context, findings: &findings)
        }
    }
}
