import Crypto
import Foundation
import VouchProtocol
import VouchSupport

/// A federated provider's own OpenID Connect ID token (PROTOCOL §8.18): RS256 or ES256 as the
/// provider is pinned, its keys fetched from the provider's key source, no Vouch nonce.
///
/// `iss` chooses the provider, byte for byte against the issuers operators configured, and plays
/// the part of `kid`'s namespace as a Sinch token's `iss` does (#9): the key is looked for only
/// among that provider's keys, so one provider's key can never verify another's token, whatever
/// the two `kid`s are. `aud` must name the provider's client id, the token must live an hour at
/// most (#24), and it signs a user in once (#25): the session's transaction records its `jti`, or
/// its hash when it has none, until it expires.
struct IDTokenPolicy {
    static let tokenType = MediaTypeRule(accepted: ["JWT"])
    static let maximumUserIDBytes = LayerPolicy.maximumUserIDBytes
    static let maximumLifetimeSeconds: Int64 = 3_600
    static let maximumTokenIDBytes = 1_024

    let jws: CompactJWS
    let appID: UUID
    let now: Int64
    let leeway: Int64
    /// `TokenPlan.replayDigest`, which a verified token carries to the session's transaction.
    let replayDigest: [UInt8]?

    static func plan(_ plan: inout TokenPlan, jws: CompactJWS) {
        var findings = Findings(mode: .all)
        try? checkHeader(jws.header, &findings)
        let issuer = jws.claims["iss"]?.stringValue
        plan.settled = findings.ordered.first
        plan.sourceKeyID = jws.header["kid"]?.stringValue
        plan.sourceProvider = issuer.map(ProviderSelector.issuer)
        plan.userID = jws.claims["sub"]?.stringValue
        if case .number(let number) = jws.claims["exp"] { plan.expiresAt = number.integerValue }
        if let issuer, let expiresAt = plan.expiresAt {
            plan.replayDigest = replayDigest(
                issuer: issuer, tokenID: jws.claims["jti"]?.stringValue, expiresAt: expiresAt, signedPart: jws.signingInput)
        }
    }

    /// What the session's transaction records as used: the issuer, the `jti` and the expiry, or,
    /// when it has no `jti`, the SHA-256 of its signed part (header and claims, not the signature,
    /// which an ES256 token's holder can rewrite into a second valid form). The same token is the
    /// same use however it is re-encoded; the expiry is part of it because a use is remembered
    /// until then.
    static func replayDigest(issuer: String, tokenID: String?, expiresAt: Int64, signedPart: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("vouch-id-token-use-v1\u{0}".utf8))
        hasher.update(data: Array(issuer.utf8))
        if let tokenID {
            hasher.update(data: Array("\u{0}jti\u{0}\(expiresAt)\u{0}".utf8))
            hasher.update(data: Array(tokenID.utf8))
        } else {
            hasher.update(data: Array("\u{0}signed\u{0}".utf8))
            hasher.update(data: signedPart)
        }
        return Array(hasher.finalize())
    }

    /// #5–#8 without the provider: `alg` and `kid` present and strings, `alg` one Vouch can verify,
    /// `typ` (optional) a JWT, no `crit`, and a `kid` of a sensible size.
    static func checkHeader(_ header: JSONMembers, _ findings: inout Findings) throws(Findings.Stop) {
        let alg = header["alg"]
        let kid = header["kid"]
        let typ = header["typ"]
        if alg == nil { try findings.add(.headerParamNotFound, param: "alg") }
        if kid == nil { try findings.add(.headerParamNotFound, param: "kid") }
        for (name, value) in [("typ", typ), ("alg", alg), ("kid", kid)] {
            if let value, value.stringValue == nil { try findings.add(.headerParamWrongType, param: name) }
        }
        if let typ = typ?.stringValue, !tokenType.accepts(typ) {
            try findings.add(.headerParamWrongValue, param: "typ", hint: "`typ` must be \(tokenType.description) or absent")
        }
        if let alg = alg?.stringValue, SourceKeyAlgorithm(rawValue: alg) == nil {
            try findings.add(.headerParamWrongValue, param: "alg", hint: "an ID token is RS256 or ES256, as its provider is pinned")
        }
        if header["crit"] != nil {
            try findings.add(.headerParamWrongValue, param: "crit", hint: "no `crit` extension is supported")
        }
        if let kid = kid?.stringValue, kid.isEmpty || kid.utf8.count > SourceKeyID.maximumBytes {
            try findings.add(.keyMalformed, param: "kid", hint: "a `kid` is 1 to \(SourceKeyID.maximumBytes) bytes")
        }
    }

    static let claimRules: [ClaimRules.Rule] = [
        .init(name: "iss", kind: .string, required: true),
        .init(name: "sub", kind: .string, required: true),
        .init(name: "iat", kind: .integer, required: true),
        .init(name: "exp", kind: .integer, required: true),
        .init(name: "nbf", kind: .integer, required: false),
        .init(name: "jti", kind: .string, required: false),
        .init(name: "azp", kind: .string, required: false),
    ]

    func evaluate(_ facts: VerificationFacts, clearedPlan: TokenPlan?, findings: inout Findings) throws(Findings.Stop) -> VerifiedToken? {
        if clearedPlan == nil { try Self.checkHeader(jws.header, &findings) }

        // #7 and #9: the provider `iss` selects, federated, pinned to the token's `alg`, and the key.
        var key: SourceKey?
        var provider: KeySourceProvider?
        if let kid = jws.header["kid"]?.stringValue, !kid.isEmpty, kid.utf8.count <= SourceKeyID.maximumBytes {
            switch facts.sourceProvider {
            case nil:
                try findings.add(.keyNotFound, param: "kid", hint: "no provider has the issuer in `iss` (compared exactly)")
            case .some(let selected) where !selected.federated || !selected.hasKeySource:
                try findings.add(.keyNotFound, param: "kid", hint: "the provider of this issuer does not accept its ID tokens (federated is off)")
            case .some(let selected):
                provider = selected
                if let alg = jws.header["alg"]?.stringValue, !alg.bytesEqual(selected.algorithm.rawValue) {
                    try findings.add(.headerParamWrongValue, param: "alg", hint: "this provider's ID tokens are \(selected.algorithm.rawValue)")
                } else {
                    switch facts.sourceKey {
                    case .found(let found) where found.key.algorithm == selected.algorithm: key = found
                    case .found: try findings.add(.keyNotFound, param: "kid", hint: "the key is not a \(selected.algorithm.rawValue) key")
                    case .notFound, nil: try findings.add(.keyNotFound, param: "kid", hint: "the provider's key source does not publish this `kid`")
                    case .unavailable(let reason): try findings.add(.keyNotFound, param: "kid", hint: reason)
                    }
                }
            }
        }

        // #12
        var signatureHolds = false
        if let key {
            signatureHolds = key.key.isValid(signature: jws.signature, for: jws.signingInput)
            if !signatureHolds { try findings.add(.signatureVerificationFailed) }
        }

        // #13–#15
        let rules = ClaimRules(claims: jws.claims, rules: Self.claimRules)
        let usable = try rules.checkPresenceAndTypes(&findings)
        let audiences = try audience(&findings)
        let userID = try rules.checkText("sub", usable: usable, maximumBytes: Self.maximumUserIDBytes, &findings)
        let issuedAt = try rules.time("iat", usable: usable, &findings)
        let expiresAt = try rules.time("exp", usable: usable, &findings)
        let notBefore = try rules.time("nbf", usable: usable, &findings)
        try rules.checkText("jti", usable: usable, maximumBytes: Self.maximumTokenIDBytes, &findings)

        guard signatureHolds, let provider else {
            try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)
            return nil
        }
        // #15 once believed: the audience is this provider's client, and `azp`, when the token has
        // several audiences, is that client too (OpenID Connect Core §3.1.3.7).
        if let audiences, let clientID = provider.clientID {
            if !audiences.contains(where: { $0.bytesEqual(clientID) }) {
                try findings.add(.claimWrongValue, claim: "aud", hint: "`aud` must name the provider's client id")
            } else if audiences.count > 1, let authorized = rules.string("azp"), !authorized.bytesEqual(clientID) {
                try findings.add(.claimWrongValue, claim: "azp", hint: "`azp` must be the provider's client id")
            }
        } else if audiences != nil {
            try findings.add(.claimWrongValue, claim: "aud", hint: "the provider has no client id configured")
        }

        // #16–#17: `iss` chose the provider; it is compared again, exactly.
        var providerID: UUID?
        if let issuer = rules.string("iss") {
            if provider.issuer.map(issuer.bytesEqual) != true {
                try findings.add(.providerNotFound, claim: "iss")
            } else if !provider.boundToApp {
                try findings.add(.providerNotBoundToApp, claim: "iss")
            } else {
                providerID = provider.providerID
            }
        }

        // #18–#19, `nbf` beside `iat`.
        let time = TimeRules(now: now, leeway: leeway)
        try time.check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)
        if let notBefore, notBefore > Saturating.add(now, leeway) {
            try findings.add(.notBefore, claim: "nbf", hint: "`nbf` is \(notBefore - now) s ahead of the server clock")
        }
        if facts.userSuspended == true { try findings.add(TokenProfile.idToken.suspendedUserRejection) }
        // #24
        if let issuedAt, let expiresAt, expiresAt - issuedAt > Self.maximumLifetimeSeconds {
            try findings.add(.ttlTooLong, claim: "exp", hint: "`exp − iat` is \(expiresAt - issuedAt) s")
        }
        // #25
        if facts.idTokenUsed == true { try findings.add(TokenProfile.idToken.usedNonceRejection) }

        guard findings.isEmpty, let providerID, let userID, let issuedAt, let expiresAt, let replayDigest else { return nil }
        return VerifiedToken(
            profile: .idToken, userID: userID, nonce: "", issuedAt: issuedAt, expiresAt: expiresAt,
            identity: identity(), providerID: providerID, keyID: nil, applicationKey: nil, sourceKeyID: key?.keyID,
            replayDigest: replayDigest)
    }

    /// `aud`: a string or a non-empty array of strings (RFC 7519 §4.1.3).
    private func audience(_ findings: inout Findings) throws(Findings.Stop) -> [String]? {
        switch jws.claims["aud"] {
        case nil:
            try findings.add(.claimNotFound, claim: "aud")
        case .string(let audience):
            return [audience]
        case .array(let values):
            let audiences = values.compactMap(\.stringValue)
            if audiences.count == values.count, !audiences.isEmpty { return audiences }
            try findings.add(.claimWrongType, claim: "aud", hint: "a string or an array of strings")
        default:
            try findings.add(.claimWrongType, claim: "aud", hint: "a string or an array of strings")
        }
        return nil
    }

    /// The profile fields of OpenID Connect's standard claims, each kept only when it is a string
    /// within Vouch's limits: a provider's token is not written for Vouch, so an odd name is left
    /// out rather than refusing the sign-in.
    private func identity() -> IdentityClaims {
        func text(_ name: String, _ maximumBytes: Int) -> String? {
            guard let text = jws.claims[name]?.stringValue, text.utf8.count <= maximumBytes, !ControlCharacters.present(in: text)
            else { return nil }
            return text
        }
        var identity = IdentityClaims()
        identity.displayName = text("name", LayerPolicy.maximumNameBytes)
        identity.firstName = text("given_name", LayerPolicy.maximumNameBytes)
        identity.lastName = text("family_name", LayerPolicy.maximumNameBytes)
        identity.avatarURL = text("picture", LayerPolicy.maximumAvatarURLBytes)
        return identity
    }
}
