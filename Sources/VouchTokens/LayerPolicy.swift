import Foundation
import VouchProtocol

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

    func evaluate(context: some VerificationContext, findings: inout Findings) async throws(Findings.Stop) -> VerifiedToken? {
        // #5–#7
        try Self.headerRules.check(jws.header, &findings)

        // #8–#11: the key named in `kid`.
        var key: LayerVerificationKey?
        if let kid = jws.header["kid"]?.stringValue, let keyID = try resolveKeyID(kid, &findings) {
            do {
                try await context.prepare(lookupPlan(keyID: keyID))
                key = try await context.layerKey(id: keyID)
            } catch {
                throw .lookupFailed(error)
            }
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

        // Lookups by claim happen only for a signed token, all in one question to the context;
        // they come before #18 because #16–#17 rank before the time rules.
        guard signatureHolds, let key else {
            try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)
            return nil
        }
        // #16: only now is `iss` believed, and it must be the key's provider.
        var questions = ClaimQuestions(appID: appID, serverNonce: nonce, userID: userID)
        if let issuer = rules.string("iss") {
            if let providerID = LayerID.parseProvider(issuer), providerID == key.providerID {
                questions.providerID = providerID
            } else {
                try findings.add(.providerNotFound, claim: "iss")
            }
        }
        let standing: ClaimStanding
        do {
            standing = try await context.claimStanding(questions, now: now)
        } catch {
            throw .lookupFailed(error)
        }

        // #16–#17
        var providerID: UUID?
        switch standing.providerBinding {
        case .unknownProvider?: try findings.add(.providerNotFound, claim: "iss")
        case .notBound?: try findings.add(.providerNotBoundToApp, claim: "iss")
        case .bound?: providerID = questions.providerID
        case nil: break
        }

        // #18–#19
        try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)

        // #21, #23
        if nonce != nil {
            switch standing.serverNonce ?? .unknown {
            case .usable:
                break
            case .unknown, .used:
                try findings.add(.nonceNotFound, claim: "nce")
            case .boundToAnotherApp:
                try findings.add(.nonceNotFound, claim: "nce", hint: "The nonce was requested for another app "
                    + "(POST /nonces with a different app_id); request one for this app.")
            }
        }
        if standing.userSuspended == true {
            try findings.add(.userSuspended, claim: "prn")
        }

        guard findings.isEmpty, let providerID, let userID, let nonce, let issuedAt, let expiresAt else {
            return nil
        }
        return VerifiedToken(profile: .layer, userID: userID, nonce: nonce, issuedAt: issuedAt, expiresAt: expiresAt,
                             identity: identity, providerID: providerID, keyID: key.id, applicationKey: nil,
                             serverNonceUse: standing.serverNonceUse)
    }

    static let headerRules = HeaderRules(parameters: [
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

    /// What the look-ups below will ask if the claims are well-formed and `iss` names the key's
    /// provider, read from the claims before any rule has judged them.
    private func lookupPlan(keyID: UUID) -> LookupPlan {
        func text(_ name: String) -> String? { jws.claims[name]?.stringValue }
        return LookupPlan(layerKeyID: keyID, claims: ClaimQuestions(
            appID: appID, providerID: text("iss").flatMap(LayerID.parseProvider), serverNonce: text("nce"), userID: text("prn")))
    }

    /// #8/#9: `layer:///keys/<uuid>` or a bare UUID. A `layer:///keys/` prefix with anything but a
    /// UUID after it is malformed; anything else (paths, SQL, other schemes) names no key.
    private func resolveKeyID(_ kid: String, _ findings: inout Findings) throws(Findings.Stop) -> UUID? {
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
