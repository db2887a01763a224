import Foundation
import VouchProtocol
import VouchSupport

/// The Layer identity-token profile (PROTOCOL §5.1): RS256 with a provider's registered key.
///
/// Everything is checked in the order of §5.4. `iss` names the provider, but it is only believed
/// after the signature made with the key named in `kid` holds, and then it must be that key's
/// provider: a provider cannot vouch with another provider's key.
struct LayerPolicy {
    static let contentType = "layer-eit;v=1"
    static let maximumUserIDBytes = 255
    static let maximumNameBytes = 128
    static let maximumAvatarURLBytes = 1024
    static let maximumNonceBytes = 1024
    /// `JWT`, or `JWS` as Layer's earlier guides and sample backends wrote it.
    static let tokenType = MediaTypeRule(accepted: ["JWT", "JWS"])

    let jws: CompactJWS
    let appID: UUID
    let now: Int64
    let leeway: Int64

    /// What the token names (`plan`'s part for this profile), and the first rule that needs no
    /// look-up (#5–#8) it breaks.
    static func plan(_ plan: inout TokenPlan, jws: CompactJWS) {
        // Every rule checked, so that what the token names is read even when it is settled: the
        // validation tool reports every rule, and asks for these. The rules run in §5.4 order, so
        // the first finding is the one `.firstOnly` would have stopped at.
        var findings = Findings(mode: .all)
        try? headerRules.check(jws.header, &findings)
        if let kid = jws.header["kid"]?.stringValue { plan.keyID = try? resolveKeyID(kid, &findings) }
        plan.settled = findings.ordered.first
        func text(_ name: String) -> String? { jws.claims[name]?.stringValue }
        plan.providerID = text("iss").flatMap(LayerID.parseProvider)
        plan.serverNonce = text("nce")
        plan.userID = text("prn")
    }

    /// - Parameter clearedPlan: the token's plan when it broke none of #1–#8 (the verdict): those
    ///   rules are not run again, and the key id is the plan's. Nil for a diagnosis, which reports
    ///   every rule.
    func evaluate(_ facts: VerificationFacts, clearedPlan: TokenPlan?, findings: inout Findings) throws(Findings.Stop) -> VerifiedToken? {
        let keyID: UUID?
        if let clearedPlan {
            keyID = clearedPlan.keyID
        } else {
            // #5–#7, and #8: the form of `kid`.
            try Self.headerRules.check(jws.header, &findings)
            keyID = try jws.header["kid"]?.stringValue.flatMap { kid throws(Findings.Stop) in try Self.resolveKeyID(kid, &findings) }
        }

        // #9–#11: the key named in `kid`.
        var key: LayerVerificationKey?
        if let keyID {
            key = facts.layerKey.flatMap { $0.id == keyID ? $0 : nil }
            switch key?.status {
            case nil: try findings.add(.keyNotFound, param: "kid")
            case .deleted: try findings.add(.keyDeleted, param: "kid")
            case .disabled: try findings.add(.keyDisabled, param: "kid")
            case .active: break
            }
        }

        // #12: RS256 whatever `alg` says; the profile fixes the algorithm.
        var signatureHolds = false
        if let key {
            signatureHolds = RS256.isValid(signature: jws.signature, for: jws.signingInput, publicKey: key.publicKey)
            if !signatureHolds { try findings.add(.signatureVerificationFailed) }
        }

        // #13–#15
        let rules = ClaimRules(claims: jws.claims, rules: Self.claimRules)
        let usable = try rules.checkPresenceAndTypes(&findings)
        let userID = try rules.checkText("prn", usable: usable, maximumBytes: Self.maximumUserIDBytes, &findings)
        let issuedAt = try rules.time("iat", usable: usable, &findings)
        let expiresAt = try rules.time("exp", usable: usable, &findings)
        let nonce = try rules.checkText("nce", usable: usable, maximumBytes: Self.maximumNonceBytes, &findings)
        var identity = IdentityClaims()
        identity.displayName = try rules.checkText("display_name", usable: usable, maximumBytes: Self.maximumNameBytes, allowEmpty: true, &findings)
        identity.firstName = try rules.checkText("first_name", usable: usable, maximumBytes: Self.maximumNameBytes, allowEmpty: true, &findings)
        identity.lastName = try rules.checkText("last_name", usable: usable, maximumBytes: Self.maximumNameBytes, allowEmpty: true, &findings)
        identity.avatarURL = try rules.checkText("avatar_url", usable: usable, maximumBytes: Self.maximumAvatarURLBytes, allowEmpty: true, &findings)

        // The facts that claims name are believed only for a signed token; #16–#17 rank before
        // the time rules.
        guard signatureHolds, let key else {
            try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)
            return nil
        }

        // #16–#17: only now is `iss` believed, and it must name the key's provider.
        var providerID: UUID?
        if let issuer = rules.string("iss") {
            if let named = LayerID.parseProvider(issuer), named == key.providerID {
                switch facts.providerBinding ?? .unknownProvider {
                case .unknownProvider: try findings.add(.providerNotFound, claim: "iss")
                case .notBound: try findings.add(.providerNotBoundToApp, claim: "iss")
                case .bound: providerID = named
                }
            } else {
                try findings.add(.providerNotFound, claim: "iss")
            }
        }

        // #18–#19
        try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)

        // #21, #23
        if nonce != nil {
            switch facts.serverNonce ?? .unknown {
            case .usable:
                break
            case .unknown:
                try findings.add(.nonceNotFound, claim: TokenProfile.layer.nonceClaim)
            case .used:
                try findings.add(TokenProfile.layer.usedNonceRejection)
            case .boundToAnotherApp:
                try findings.add(
                    .nonceNotFound, claim: TokenProfile.layer.nonceClaim,
                    hint: "The nonce was requested for another app "
                        + "(POST /nonces with a different app_id); request one for this app.")
            }
        }
        if facts.userSuspended == true {
            try findings.add(TokenProfile.layer.suspendedUserRejection)
        }

        guard findings.isEmpty, let providerID, let userID, let nonce, let issuedAt, let expiresAt else {
            return nil
        }
        return VerifiedToken(
            profile: .layer, userID: userID, nonce: nonce, issuedAt: issuedAt, expiresAt: expiresAt,
            identity: identity, providerID: providerID, keyID: key.id, applicationKey: nil)
    }

    static let headerRules = HeaderRules(
        parameters: [
            .init(name: "typ", comparison: .mediaType(tokenType), required: true),
            .init(name: "alg", expected: "RS256", required: true),
            .init(name: "cty", expected: contentType, required: true),
        ], otherRequired: ["kid"])

    static let claimRules: [ClaimRules.Rule] = [
        .init(name: "iss", kind: .string, required: true),
        .init(name: "prn", kind: .string, required: true),
        .init(name: "iat", kind: .integer, required: true),
        .init(name: "exp", kind: .integer, required: true),
        .init(name: "nce", kind: .string, required: true),
        .init(name: "display_name", kind: .string, required: false),
        .init(name: "first_name", kind: .string, required: false),
        .init(name: "last_name", kind: .string, required: false),
        .init(name: "avatar_url", kind: .string, required: false),
    ]

    /// #8/#9: `layer:///keys/<uuid>` or a bare UUID. A `layer:///keys/` prefix with anything but a
    /// UUID after it is malformed; anything else (paths, SQL, other schemes) names no key.
    private static func resolveKeyID(_ kid: String, _ findings: inout Findings) throws(Findings.Stop) -> UUID? {
        if let rest = kid.bytesAfterPrefix(LayerID.keyPrefix) {
            guard let id = LayerID.parseUUID(rest) else {
                try findings.add(.keyMalformed, param: "kid")
                return nil
            }
            return id
        }
        guard let id = LayerID.parseUUID(kid) else {
            try findings.add(.keyNotFound, param: "kid")
            return nil
        }
        return id
    }
}
