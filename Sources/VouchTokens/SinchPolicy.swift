import Crypto
import Foundation
import VouchProtocol
import VouchSupport

/// The Sinch registration-token profile (PROTOCOL §5.2): HS256 under a daily key derived from
/// the app's registration secret.
///
/// The one claim read before the signature is `iss`: its application key names the secret, and so
/// plays the part `kid` plays in the Layer profile (rule #9). The `kid` date must be yesterday,
/// today or tomorrow in UTC calendar terms, and the UTC day of `iat`.
struct SinchPolicy {
    static let issuerPrefix = "//rtc.sinch.com/applications/"
    static let minimumTTL: Int64 = 60
    static let maximumUserIDBytes = 255
    static let maximumNonceBytes = 1024

    let jws: CompactJWS
    let appID: UUID
    let now: Int64
    let leeway: Int64
    let dailyKeys: SinchDailyKeys

    /// What the token names (`plan`'s part for this profile), and the first rule that needs no
    /// look-up (#5–#8, and #9's form of `iss`) it breaks.
    static func plan(_ plan: inout TokenPlan, jws: CompactJWS) {
        // Every rule checked, so that what the token names is read even when it is settled: the
        // validation tool reports every rule, and asks for these. The rules run in §5.4 order, so
        // the first finding is the one `.firstOnly` would have stopped at.
        var findings = Findings(mode: .all)
        try? headerRules.check(jws.header, &findings)
        plan.sinchKeyDate = try? checkKIDForm(jws, &findings)
        plan.applicationKey = try? applicationKey(jws, &findings)
        plan.settled = findings.ordered.first
        plan.registrationNonce = jws.claims["nonce"]?.stringValue
        if let subject = jws.claims["sub"]?.stringValue, let issuer = jws.claims["iss"]?.stringValue {
            plan.userID = try? userID(subject: subject, issuer: issuer)
        }
    }

    /// - Parameters:
    ///   - plannedUserID: the user id `plan` derived from the same claims by the same rule, when
    ///     it found a valid one: there is then nothing to derive again.
    ///   - clearedPlan: the token's plan when it broke none of #1–#8 (the verdict): those rules
    ///     are not run again, and the `kid` date and application key are the plan's. Nil for a
    ///     diagnosis, which reports every rule.
    func evaluate(
        _ facts: VerificationFacts, plannedUserID: String?, clearedPlan: TokenPlan?, findings: inout Findings
    ) throws(Findings.Stop) -> VerifiedToken? {
        let kidDate: CivilDate?
        let applicationKey: UUID?
        if let clearedPlan {
            kidDate = clearedPlan.sinchKeyDate
            applicationKey = clearedPlan.applicationKey
        } else {
            // #5–#7 (`typ` is optional here, but must name a JWT when present)
            try Self.headerRules.check(jws.header, &findings)
            // #8: the profile was chosen because `kid` starts with `hkdfv1-`; the rest must be a date.
            kidDate = try Self.checkKIDForm(jws, &findings)
            applicationKey = try Self.applicationKey(jws, &findings)
        }

        // #9: the secret named by `iss`, and a `kid` date the server accepts.
        var secret: RegistrationSecret?
        if let applicationKey {
            secret = facts.registrationSecret.flatMap { $0.applicationKey == applicationKey ? $0 : nil }
            if secret == nil { try findings.add(.keyNotFound, claim: "iss", hint: "unknown application key") }
        }
        if let kidDate { try checkKIDDate(kidDate, &findings) }

        // #12
        var signatureHolds = false
        if let secret, let kidDate {
            let key = dailyKeys.key(secret: secret.secret, date: kidDate)
            signatureHolds = HS256.isValid(tag: jws.signature, for: jws.signingInput, key: key)
            if !signatureHolds { try findings.add(.signatureVerificationFailed) }
        }

        // #13–#15
        let rules = ClaimRules(claims: jws.claims, rules: Self.claimRules)
        let usable = try rules.checkPresenceAndTypes(&findings)
        let issuedAt = try rules.time("iat", usable: usable, &findings)
        let expiresAt = try rules.time("exp", usable: usable, &findings)
        _ = try rules.time("sinch:rtc:instance:exp", usable: usable, &findings)
        let nonce = try rules.checkText("nonce", usable: usable, maximumBytes: Self.maximumNonceBytes, &findings)
        var userID: String?
        if let subject = usable["sub"]?.stringValue, let issuer = usable["iss"]?.stringValue {
            userID = plannedUserID
            if userID == nil {
                do {
                    userID = try Self.userID(subject: subject, issuer: issuer)
                } catch {
                    try findings.add(error)
                }
            }
        }

        // #17 (#16 has no Sinch analogue: the application key was found at #9)
        if signatureHolds, let secret, secret.appID != appID {
            try findings.add(.providerNotBoundToApp, claim: "iss", hint: "the application key belongs to another app")
        }

        // #18–#20
        try TimeRules(now: now, leeway: leeway).check(issuedAt: issuedAt, expiresAt: expiresAt, &findings)
        if let issuedAt, let expiresAt, expiresAt - issuedAt < Self.minimumTTL {
            try findings.add(.ttlTooShort, claim: "exp", hint: "`exp − iat` must be at least \(Self.minimumTTL) s")
        }

        // #22, #23: facts named by claims, believed only for a signed token.
        guard signatureHolds, let secret else { return nil }
        if nonce != nil, facts.registrationNonceSeen == true {
            try findings.add(TokenProfile.sinch.usedNonceRejection)
        }
        if userID != nil, facts.userSuspended == true {
            try findings.add(TokenProfile.sinch.suspendedUserRejection)
        }

        guard findings.isEmpty, let userID, let nonce, let issuedAt, let expiresAt else { return nil }
        return VerifiedToken(
            profile: .sinch, userID: userID, nonce: nonce, issuedAt: issuedAt, expiresAt: expiresAt,
            identity: IdentityClaims(), providerID: nil, keyID: nil, applicationKey: secret.applicationKey)
    }

    static let headerRules = HeaderRules(
        parameters: [
            .init(name: "alg", expected: "HS256", required: true),
            .init(name: "typ", comparison: .mediaType(MediaTypeRule(accepted: ["JWT"])), required: false),
        ], otherRequired: ["kid"])

    static let claimRules: [ClaimRules.Rule] = [
        .init(name: "iss", kind: .string, required: true),
        .init(name: "sub", kind: .string, required: true),
        .init(name: "iat", kind: .integer, required: true),
        .init(name: "exp", kind: .integer, required: true),
        .init(name: "nonce", kind: .string, required: true),
        .init(name: "sinch:rtc:instance:exp", kind: .integer, required: false),
    ]

    /// #9 via `iss`: `//rtc.sinch.com/applications/<application key>`. A missing or malformed `iss`
    /// names no secret, which in this profile is the same as an unknown `kid`.
    @discardableResult
    private static func applicationKey(_ jws: CompactJWS, _ findings: inout Findings) throws(Findings.Stop) -> UUID? {
        // The key is read in place after the (ASCII) prefix: no string is made of it.
        let prefixCount = issuerPrefix.utf8.count
        guard let issuer = jws.claims["iss"]?.stringValue, issuer.bytesHavePrefix(issuerPrefix),
            let key = issuer.utf8.withContiguousStorageIfAvailable({ LayerID.parseUUID(utf8: UnsafeBufferPointer(rebasing: $0[prefixCount...])) })
                ?? LayerID.parseUUID(Substring(issuer.utf8.dropFirst(prefixCount)))
        else {
            try findings.add(.keyNotFound, claim: "iss", hint: "`iss` must be `\(issuerPrefix)<application key>`")
            return nil
        }
        return key
    }

    /// #8: `hkdfv1-` and a date, the date returned.
    @discardableResult
    private static func checkKIDForm(_ jws: CompactJWS, _ findings: inout Findings) throws(Findings.Stop) -> CivilDate? {
        let kidDate = jws.header["kid"]?.stringValue.flatMap(SinchSigningKey.date(fromKID:))
        if kidDate == nil { try findings.add(.keyMalformed, param: "kid", hint: "`kid` must be `hkdfv1-YYYYMMDD`") }
        return kidDate
    }

    /// #9 via the `kid` date: calendar dates, not a 24-hour window.
    private func checkKIDDate(_ kidDate: CivilDate, _ findings: inout Findings) throws(Findings.Stop) {
        let today = CivilDate(unixSeconds: now)
        guard abs(kidDate.daysSinceEpoch - today.daysSinceEpoch) <= 1 else {
            try findings.add(.keyNotFound, param: "kid", hint: "the `kid` date must be yesterday, today or tomorrow (UTC); server date is \(today)")
            return
        }
        // A missing or non-integer `iat` is reported by #13/#14 instead.
        if let issuedAt = jws.claims["iat"]?.integerValue, issuedAt >= 0, CivilDate(unixSeconds: issuedAt) != kidDate {
            try findings.add(.keyNotFound, param: "kid", hint: "the `kid` date must be the UTC day of `iat`")
        }
    }

    /// #15 for `sub`: it must be `iss` + `/users/` + a user id of 1…255 bytes of `[A-Za-z0-9_=-]`.
    private static func userID(subject: String, issuer: String) throws(TokenRejection) -> String {
        guard let userID = subject.bytesDroppingPrefix(issuer)?.bytesDroppingPrefix("/users/") else {
            throw TokenRejection(.claimWrongValue, claim: "sub", hint: "`sub` must be `iss` followed by `/users/<user id>`")
        }
        guard isValidUserID(userID) else {
            throw TokenRejection(.claimWrongValue, claim: "sub", hint: "the user id must be 1…255 characters of A–Z a–z 0–9 _ = -")
        }
        return userID
    }

    static func isValidUserID(_ userID: String) -> Bool {
        let bytes = userID.utf8
        return (1...maximumUserIDBytes).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "="), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
    }
}
