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
        func text(_ name: String) -> String? { jws.claims[name]?.stringValue }
        if let kid = jws.header["kid"]?.stringValue {
            switch keyReference(kid: kid, issuer: text("iss")) {
            case .uploaded(let id):
                plan.keyID = id
            case .fetched(let kid, let provider, let uploadedAlias):
                plan.sourceKeyID = kid
                plan.sourceProvider = provider
                plan.keyID = uploadedAlias
            case .malformed:
                try? findings.add(.keyMalformed, param: "kid")
            case .unknown:
                try? findings.add(.keyNotFound, param: "kid")
            }
        }
        plan.settled = findings.ordered.first
        plan.providerID = text("iss").flatMap(LayerID.parseProvider)
        plan.serverNonce = text("nce")
        plan.userID = text("prn")
    }

    /// - Parameter clearedPlan: the token's plan when it broke none of #1–#8 (the verdict): those
    ///   rules are not run again, and the key id is the plan's. Nil for a diagnosis, which reports
    ///   every rule.
    func evaluate(_ facts: VerificationFacts, clearedPlan: TokenPlan?, findings: inout Findings) throws(Findings.Stop) -> VerifiedToken? {
        var reference: KeyReference?
        if clearedPlan == nil {
            // #5–#7
            try Self.headerRules.check(jws.header, &findings)
        }
        if let kid = jws.header["kid"]?.stringValue {
            reference = Self.keyReference(kid: kid, issuer: jws.claims["iss"]?.stringValue)
            // #8, and #9 for a `kid` that can name no key (a cleared plan broke neither).
            if clearedPlan == nil, case .malformed = reference { try findings.add(.keyMalformed, param: "kid") }
            if clearedPlan == nil, case .unknown = reference { try findings.add(.keyNotFound, param: "kid") }
        }

        // #9–#11: the uploaded key the `kid` names, or the provider's fetched one.
        var key: LayerVerificationKey?
        var fetched: (key: SourceKey, provider: KeySourceProvider)?
        switch reference {
        case .uploaded(let id):
            key = try Self.uploadedKey(id, facts, &findings)
        case .fetched(let kid, _, let alias):
            if let alias, let uploaded = facts.layerKey, uploaded.id == alias {
                key = try Self.uploadedKey(alias, facts, &findings)
            } else {
                fetched = try Self.fetchedKey(kid, facts, &findings)
            }
        case .malformed, .unknown, nil:
            break
        }

        // #12: RS256 whatever `alg` says; the profile fixes the algorithm.
        var signatureHolds = false
        if let key {
            signatureHolds = RS256.isValid(signature: jws.signature, for: jws.signingInput, publicKey: key.publicKey)
            if !signatureHolds { try findings.add(.signatureVerificationFailed) }
        } else if let fetched {
            signatureHolds = fetched.key.key.isValid(signature: jws.signature, for: jws.signingInput)
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
        guard signatureHolds, key != nil || fetched != nil else {
            try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)
            return nil
        }

        // #16–#17: only now is `iss` believed, and it must name the key's provider.
        var providerID: UUID?
        if let issuer = rules.string("iss") {
            if let key {
                if let named = LayerID.parseProvider(issuer), named == key.providerID {
                    switch facts.providerBinding ?? .unknownProvider {
                    case .unknownProvider: try findings.add(.providerNotFound, claim: "iss")
                    case .notBound: try findings.add(.providerNotBoundToApp, claim: "iss")
                    case .bound: providerID = named
                    }
                } else {
                    try findings.add(.providerNotFound, claim: "iss")
                }
            } else if let fetched {
                // The provider was chosen by this very `iss`; it is checked again, exactly.
                let provider = fetched.provider
                let names = LayerID.parseProvider(issuer) == provider.providerID || provider.issuer.map(issuer.bytesEqual) == true
                if !names {
                    try findings.add(.providerNotFound, claim: "iss")
                } else if !provider.boundToApp {
                    try findings.add(.providerNotBoundToApp, claim: "iss")
                } else {
                    providerID = provider.providerID
                }
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
            identity: identity, providerID: providerID, keyID: key?.id, applicationKey: nil, sourceKeyID: fetched?.key.keyID)
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

    /// What a `kid` names, read with the token's `iss`.
    enum KeyReference {
        /// `layer:///keys/<uuid>`, or a bare UUID when `iss` names no provider by issuer.
        case uploaded(UUID)
        /// A key in the key source of the provider `iss` selects (PROTOCOL §8.18). A bare UUID
        /// may also be an uploaded key's id, which is tried first.
        case fetched(kid: String, provider: ProviderSelector, uploadedAlias: UUID?)
        /// #8: `layer:///keys/` with anything but a UUID after it.
        case malformed
        /// #9: anything else (paths, SQL, other schemes) with no provider to look it up in.
        case unknown
    }

    /// #8/#9 before any look-up: the `layer:///keys/` prefix always means an uploaded key; any
    /// other `kid` of a token whose `iss` selects a provider is looked up in its key source.
    static func keyReference(kid: String, issuer: String?) -> KeyReference {
        if let rest = kid.bytesAfterPrefix(LayerID.keyPrefix) {
            return LayerID.parseUUID(rest).map(KeyReference.uploaded) ?? .malformed
        }
        let bareUUID = LayerID.parseUUID(kid)
        if let selector = issuer.flatMap(Self.sourceProvider), !kid.isEmpty, kid.utf8.count <= SourceKeyID.maximumBytes {
            return .fetched(kid: kid, provider: selector, uploadedAlias: bareUUID)
        }
        return bareUUID.map(KeyReference.uploaded) ?? .unknown
    }

    /// The provider an `iss` selects for a fetched key: its id, or any other issuer, which must
    /// match a provider's byte for byte.
    static func sourceProvider(_ issuer: String) -> ProviderSelector? {
        if let id = LayerID.parseProvider(issuer) { return .id(id) }
        guard !issuer.isEmpty, !issuer.bytesHavePrefix("layer:///") else { return nil }
        return .issuer(issuer)
    }

    /// #9–#11 for an uploaded key.
    private static func uploadedKey(_ id: UUID, _ facts: VerificationFacts, _ findings: inout Findings) throws(Findings.Stop) -> LayerVerificationKey? {
        let key = facts.layerKey.flatMap { $0.id == id ? $0 : nil }
        switch key?.status {
        case nil: try findings.add(.keyNotFound, param: "kid")
        case .deleted: try findings.add(.keyDeleted, param: "kid")
        case .disabled: try findings.add(.keyDisabled, param: "kid")
        case .active: return key
        }
        return nil
    }

    /// #9 for a fetched key: the provider must have a key source of RS256 keys holding the `kid`.
    private static func fetchedKey(
        _ kid: String, _ facts: VerificationFacts, _ findings: inout Findings
    ) throws(Findings.Stop) -> (key: SourceKey, provider: KeySourceProvider)? {
        guard let provider = facts.sourceProvider, provider.hasKeySource else {
            try findings.add(.keyNotFound, param: "kid")
            return nil
        }
        guard provider.algorithm == .rs256 else {
            try findings.add(.keyNotFound, param: "kid", hint: "the provider's keys are \(provider.algorithm.rawValue); this profile is RS256")
            return nil
        }
        switch facts.sourceKey {
        case .found(let key) where key.key.algorithm == .rs256:
            return (key, provider)
        case .found:
            try findings.add(.keyNotFound, param: "kid", hint: "the key is not an RSA key")
        case .notFound, nil:
            try findings.add(.keyNotFound, param: "kid", hint: "the provider's key source does not publish this `kid`")
        case .unavailable(let reason):
            try findings.add(.keyNotFound, param: "kid", hint: reason)
        }
        return nil
    }
}
