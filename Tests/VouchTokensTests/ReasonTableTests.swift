import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTokens
import _CryptoExtras

/// One token, the world it is judged in, and the one reason `verify` must give.
struct Scenario: Sendable, CustomTestStringConvertible {
    struct Built {
        var token: String
        var context: TestContext
        var appID: UUID
        var now: Int64
    }

    let name: String
    let expected: RejectionReason
    var param: String?
    var claim: String?
    /// A fragment the rejection's hint must contain.
    var hint: String?
    let build: @Sendable () throws -> Built

    var testDescription: String { "\(expected.rawValue): \(name)" }

    /// A Layer token: the valid one, with header / claims / signer / world altered.
    static func layer(
        _ name: String, _ expected: RejectionReason, param: String? = nil, claim: String? = nil, hint: String? = nil,
        now: Int64 = LayerWorld.now,
        header: @escaping @Sendable (inout JSONText) -> Void = { _ in },
        claims: @escaping @Sendable (inout JSONText) -> Void = { _ in },
        attackerSigns: Bool = false,
        context: @escaping @Sendable (inout TestContext) -> Void = { _ in },
        token transform: @escaping @Sendable (String) -> String = { $0 }
    ) -> Scenario {
        Scenario(name: "Layer: " + name, expected: expected, param: param, claim: claim, hint: hint) {
            var headerText = LayerWorld.header()
            header(&headerText)
            var claimsText = LayerWorld.claims()
            claims(&claimsText)
            let key = attackerSigns ? TestKeys.attacker.privateKey : TestKeys.provider.privateKey
            let token = transform(try LayerWorld.token(header: headerText, claims: claimsText, key: key))
            var world = LayerWorld.context()
            context(&world)
            return Built(token: token, context: world, appID: LayerWorld.appID, now: now)
        }
    }

    /// A federated ID token: the valid one, with header / claims / signer / world altered.
    static func idToken(
        _ name: String, _ expected: RejectionReason, param: String? = nil, claim: String? = nil, hint: String? = nil,
        header: JSONText = IDTokenWorld.header(), claims: JSONText = IDTokenWorld.claims(),
        context: @escaping @Sendable (inout TestContext, _ token: String) -> Void = { _, _ in }
    ) -> Scenario {
        Scenario(name: "ID token: " + name, expected: expected, param: param, claim: claim, hint: hint) {
            let token = try IDTokenWorld.token(header: header, claims: claims)
            var world = IDTokenWorld.context()
            context(&world, token)
            return Built(token: token, context: world, appID: IDTokenWorld.appID, now: IDTokenWorld.now)
        }
    }

    /// A Sinch token: the reference one, with header / claims / key / world altered.
    static func sinch(
        _ name: String, _ expected: RejectionReason, param: String? = nil, claim: String? = nil, hint: String? = nil,
        now: Int64 = SinchWorld.now, secretApp: UUID = SinchWorld.appID,
        header: @escaping @Sendable (inout JSONText) -> Void = { _ in },
        claims: @escaping @Sendable (inout JSONText) -> Void = { _ in },
        keyDate: String? = nil, wrongSecret: Bool = false,
        context: @escaping @Sendable (inout TestContext) -> Void = { _ in }
    ) -> Scenario {
        Scenario(name: "Sinch: " + name, expected: expected, param: param, claim: claim, hint: hint) {
            var headerText = SinchWorld.header()
            header(&headerText)
            var claimsText = SinchWorld.claims()
            claims(&claimsText)
            let secret = wrongSecret ? Array(repeating: UInt8(0x42), count: 16) : SinchWorld.secret
            let token = try SinchWorld.token(header: headerText, claims: claimsText, keyDate: keyDate, secret: secret)
            var world = SinchWorld.context(secretApp: secretApp)
            context(&world)
            return Built(token: token, context: world, appID: SinchWorld.appID, now: now)
        }
    }
}

/// Instants used by the Sinch calendar cases.
enum SinchDays {
    /// 2018-01-03T00:00:00Z.
    static let jan3: Int64 = 1_514_937_600
    /// 2018-01-03T00:30:00Z: "now" for the just-after-midnight cases.
    static let halfPastMidnight: Int64 = jan3 + 1800
}

enum ReasonScenarios {
    /// At least one token per rule of PROTOCOL §5.4, each breaking only that rule.
    static let perReason: [Scenario] = [
        // #1
        .layer("a signed token over 8 KiB", .tokenTooLarge, claims: { $0["pad"] = jsonString(String(repeating: "x", count: 9000)) }),
        // #2
        .layer("four parts", .wrongJWSPartCount, token: { $0 + ".AAAA" }),
        .layer("two parts (signature dropped)", .wrongJWSPartCount, token: { JWS.parts($0).prefix(2).joined(separator: ".") }),
        // #3
        .layer("padding after the signature", .malformedBase64URL, token: { $0 + "==" }),
        // #4
        Scenario(name: "Layer: header is truncated JSON", expected: .malformedJSON) {
            let token = try LayerWorld.token(
                headerBytes: Array(#"{"typ":"JWT","alg":"RS256","cty":"layer-eit;v=1""#.utf8),
                claimsBytes: LayerWorld.claims().bytes)
            return .init(token: token, context: LayerWorld.context(), appID: LayerWorld.appID, now: LayerWorld.now)
        },
        Scenario(name: "Layer: claims are a JSON array", expected: .malformedJSON) {
            let token = try LayerWorld.token(headerBytes: LayerWorld.header().bytes, claimsBytes: Array("[1,2]".utf8))
            return .init(token: token, context: LayerWorld.context(), appID: LayerWorld.appID, now: LayerWorld.now)
        },
        // #5
        .layer("typ missing", .headerParamNotFound, param: "typ", header: { $0["typ"] = nil }),
        .layer("kid missing", .headerParamNotFound, param: "kid", header: { $0["kid"] = nil }),
        .layer("alg missing", .headerParamNotFound, param: "alg", header: { $0["alg"] = nil }),
        // #6
        .layer("typ is a number", .headerParamWrongType, param: "typ", header: { $0["typ"] = "1" }),
        .layer("kid is an object", .headerParamWrongType, param: "kid", header: { $0["kid"] = "{}" }),
        // #7
        .layer("alg RS512", .headerParamWrongValue, param: "alg", header: { $0["alg"] = jsonString("RS512") }),
        .layer("cty of another version", .headerParamWrongValue, param: "cty", header: { $0["cty"] = jsonString("layer-eit;v=2") }),
        .layer("typ JOSE", .headerParamWrongValue, param: "typ", header: { $0["typ"] = jsonString("JOSE") }),
        // #8
        .layer(
            "kid layer:///keys/ + not a UUID", .keyMalformed, param: "kid",
            header: { $0["kid"] = jsonString("layer:///keys/not-a-uuid") }),
        // #9
        .layer("kid names no key", .keyNotFound, param: "kid", header: { $0["kid"] = jsonString(LayerID.key(LayerWorld.unknownKeyID)) }),
        // #10
        .layer("key deleted", .keyDeleted, param: "kid", context: { $0.layerKeys[LayerWorld.keyID]?.status = .deleted }),
        // #11
        .layer("key disabled", .keyDisabled, param: "kid", context: { $0.layerKeys[LayerWorld.keyID]?.status = .disabled }),
        // #12
        .layer("signed by another private key", .signatureVerificationFailed, attackerSigns: true),
        // #13
        .layer("nce missing", .claimNotFound, claim: "nce", claims: { $0["nce"] = nil }),
        .layer("iss missing", .claimNotFound, claim: "iss", claims: { $0["iss"] = nil }),
        // #14
        .layer("prn is a number", .claimWrongType, claim: "prn", claims: { $0["prn"] = "42" }),
        .layer("exp is a string", .claimWrongType, claim: "exp", claims: { $0["exp"] = jsonString("1700000110") }),
        // #15
        .layer("prn empty", .claimWrongValue, claim: "prn", claims: { $0["prn"] = jsonString("") }),
        .layer("prn of 256 bytes", .claimWrongValue, claim: "prn", claims: { $0["prn"] = jsonString(String(repeating: "u", count: 256)) }),
        .layer(
            "display_name over 128 bytes", .claimWrongValue, claim: "display_name",
            claims: { $0["display_name"] = jsonString(String(repeating: "n", count: 129)) }),
        .layer(
            "avatar_url over 1024 bytes", .claimWrongValue, claim: "avatar_url",
            claims: { $0["avatar_url"] = jsonString("https://x/" + String(repeating: "a", count: 1020)) }),
        .layer("negative exp", .claimWrongValue, claim: "exp", claims: { $0["exp"] = "-1" }),
        // #16
        .layer(
            "iss names another provider than the key's", .providerNotFound, claim: "iss",
            claims: { $0["iss"] = jsonString(LayerID.provider(LayerWorld.otherProviderID)) }),
        .layer("iss is not a provider id", .providerNotFound, claim: "iss", claims: { $0["iss"] = jsonString("acme") }),
        .layer(
            "provider unknown to the server", .providerNotFound, claim: "iss",
            context: { $0.providers[LayerWorld.providerID] = nil }),
        // #17
        .layer(
            "provider not bound to the app", .providerNotBoundToApp, claim: "iss",
            context: { $0.providers[LayerWorld.providerID] = [LayerWorld.otherAppID] }),
        // #18
        .layer(
            "expired beyond the leeway", .expired, claim: "exp",
            claims: {
                $0["iat"] = String(LayerWorld.now - 300)
                $0["exp"] = String(LayerWorld.now - 60)
            }),
        // #19
        .layer(
            "iat in the future beyond the leeway", .notBefore, claim: "iat",
            claims: {
                $0["iat"] = String(LayerWorld.now + 61)
                $0["exp"] = String(LayerWorld.now + 300)
            }),
        // #20 (Sinch only)
        .sinch("exp − iat = 59", .ttlTooShort, claims: { $0["exp"] = String(SinchWorld.iat + 59) }),
        // #21
        .layer("nonce not issued", .nonceNotFound, claim: "nce", context: { $0.usableNonces = [] }),
        // #22 (Sinch only)
        .sinch("nonce seen before", .nonceReplayed, claim: "nonce", context: { $0.seenRegistrationNonces = [SinchWorld.nonce] }),
        // #23
        .layer("user suspended", .userSuspended, claim: "prn", context: { $0.suspendedUsers = [LayerWorld.userID] }),
    ]

    /// Tokens breaking two rules: the lower-numbered one wins.
    static let precedence: [Scenario] = [
        .layer(
            "bad signature + expired → signature", .signatureVerificationFailed,
            claims: {
                $0["iat"] = String(LayerWorld.now - 3600)
                $0["exp"] = String(LayerWorld.now - 3000)
            }, attackerSigns: true),
        .layer(
            "wrong alg + unknown kid → header", .headerParamWrongValue, param: "alg",
            header: {
                $0["alg"] = jsonString("HS256")
                $0["kid"] = jsonString(LayerID.key(LayerWorld.unknownKeyID))
            }),
        .layer(
            "missing claim + bad signature → signature", .signatureVerificationFailed,
            claims: { $0["prn"] = nil }, attackerSigns: true),
        .layer(
            "expired + nonce not found → expired", .expired, claim: "exp",
            claims: {
                $0["iat"] = String(LayerWorld.now - 3600)
                $0["exp"] = String(LayerWorld.now - 3000)
            },
            context: { $0.usableNonces = [] }),
        .layer(
            "not bound + expired → not bound", .providerNotBoundToApp, claim: "iss",
            claims: {
                $0["iat"] = String(LayerWorld.now - 3600)
                $0["exp"] = String(LayerWorld.now - 3000)
            },
            context: { $0.providers[LayerWorld.providerID] = [] }),
        .layer(
            "disabled key + bad signature → disabled", .keyDisabled, param: "kid", attackerSigns: true,
            context: { $0.layerKeys[LayerWorld.keyID]?.status = .disabled }),
        .layer(
            "iat in milliseconds → not before, with a hint about milliseconds", .notBefore, claim: "iat", hint: "milliseconds",
            claims: { $0["iat"] = String(LayerWorld.now * 1000) }),
        .layer(
            "missing exp + empty prn → missing first", .claimNotFound, claim: "exp",
            claims: {
                $0["exp"] = nil
                $0["prn"] = jsonString("")
            }),
        .layer(
            "missing typ + wrong alg → missing first", .headerParamNotFound, param: "typ",
            header: {
                $0["typ"] = nil
                $0["alg"] = jsonString("none")
            }),
        .layer(
            "suspended + nonce not found → nonce", .nonceNotFound, claim: "nce",
            context: {
                $0.usableNonces = []
                $0.suspendedUsers = [LayerWorld.userID]
            }),
    ]

    /// The Sinch profile's rules by analogy (PROTOCOL §5.4, last paragraph).
    static let sinch: [Scenario] = [
        .sinch("alg missing", .headerParamNotFound, param: "alg", header: { $0["alg"] = nil }),
        .sinch("alg RS256", .headerParamWrongValue, param: "alg", header: { $0["alg"] = jsonString("RS256") }),
        .sinch("typ JOSE", .headerParamWrongValue, param: "typ", header: { $0["typ"] = jsonString("JOSE") }),
        .sinch(
            "kid hkdfv1- with an impossible date", .keyMalformed, param: "kid",
            header: { $0["kid"] = jsonString("hkdfv1-20181302") }, keyDate: "20180102"),
        .sinch("unknown application key", .keyNotFound, context: { $0.registrationSecrets = [:] }),
        .sinch(
            "kid date two days off", .keyNotFound, param: "kid",
            header: { $0["kid"] = jsonString("hkdfv1-20171231") },
            claims: {
                $0["iat"] = String(SinchWorld.iat - 2 * 86_400)
                $0["exp"] = String(SinchWorld.iat + 600)
            }),
        .sinch(
            "kid date (yesterday) is not the UTC day of iat", .keyNotFound, param: "kid",
            header: { $0["kid"] = jsonString("hkdfv1-20180101") }),
        .sinch(
            "at 00:30 UTC, a token dated the day before yesterday", .keyNotFound, param: "kid",
            now: SinchDays.halfPastMidnight,
            header: { $0["kid"] = jsonString("hkdfv1-20180101") },
            claims: {
                $0["iat"] = String(SinchDays.jan3 - 86_400 - 300)
                $0["exp"] = String(SinchDays.halfPastMidnight + 3600)
            }),
        .sinch("signed with another secret", .signatureVerificationFailed, wrongSecret: true),
        .sinch("missing iat → claim_not_found, not key_not_found", .claimNotFound, claim: "iat", claims: { $0["iat"] = nil }),
        .sinch("iat as a string", .claimWrongType, claim: "iat", claims: { $0["iat"] = jsonString(String(SinchWorld.iat)) }),
        .sinch(
            "sub does not match iss", .claimWrongValue, claim: "sub",
            claims: { $0["sub"] = jsonString("//rtc.sinch.com/applications/00000000-0000-4000-8000-000000000000/users/foo") }),
        .sinch(
            "user id outside [A-Za-z0-9_=-]", .claimWrongValue, claim: "sub",
            claims: { $0["sub"] = jsonString(SinchWorld.issuer + "/users/foo bar") }),
        .sinch("secret of another app", .providerNotBoundToApp, claim: "iss", secretApp: SinchWorld.otherAppID),
        .sinch("expired", .expired, claim: "exp", now: SinchWorld.iat + 600 + 60),
        .sinch("iat ahead of the server clock", .notBefore, claim: "iat", now: SinchWorld.iat - 200),
        .sinch("user suspended", .userSuspended, claim: "sub", context: { $0.suspendedUsers = ["foo"] }),
    ]

    /// The ID-token rules of §8.18, the two reasons it adds among them.
    static let idTokens: [Scenario] = [
        .idToken("alg HS256", .headerParamWrongValue, param: "alg", header: IDTokenWorld.header(alg: "HS256")),
        .idToken("alg ES256 for an RS256 provider", .headerParamWrongValue, param: "alg", header: IDTokenWorld.header(alg: "ES256")),
        .idToken("a kid the source does not publish", .keyNotFound, param: "kid", header: IDTokenWorld.header(kid: "other")),
        .idToken(
            "an issuer no provider has", .keyNotFound, param: "kid", hint: "no provider",
            claims: JSONText([
                ("iss", jsonString("https://login.example.com/tenant/")), ("sub", jsonString("a")), ("aud", jsonString("client-1")),
                ("iat", String(IDTokenWorld.now - 10)), ("exp", String(IDTokenWorld.now + 600)),
            ])),
        .idToken(
            "a provider that is not federated", .keyNotFound, param: "kid", hint: "federated",
            context: { world, _ in world.sourceProviders[IDTokenWorld.issuer]?.federated = false }),
        .idToken(
            "aud another client", .claimWrongValue, claim: "aud",
            claims: JSONText([
                ("iss", jsonString(IDTokenWorld.issuer)), ("sub", jsonString("a")), ("aud", jsonString("client-2")),
                ("iat", String(IDTokenWorld.now - 10)), ("exp", String(IDTokenWorld.now + 600)),
            ])),
        .idToken(
            "not bound to the app", .providerNotBoundToApp, claim: "iss",
            context: { world, _ in world.sourceProviders[IDTokenWorld.issuer]?.boundToApp = false }),
        .idToken("lives longer than an hour", .ttlTooLong, claim: "exp", claims: IDTokenWorld.claims(exp: IDTokenWorld.now + 3_600)),
        .idToken(
            "already signed in", .tokenReplayed,
            context: { world, token in
                if let digest = TokenVerifier().plan(token, appID: IDTokenWorld.appID).replayDigest { world.usedIDTokens.insert(digest) }
            }),
    ]

    static let all = perReason + precedence + sinch + idTokens
}

@Suite("Reason table (PROTOCOL §5.4)")
struct ReasonTableTests {
    @Test("the valid tokens the scenarios start from verify")
    func baselinesVerify() async throws {
        let layer = try await TokenVerifier().verify(
            try LayerWorld.token(), appID: LayerWorld.appID,
            facts: LayerWorld.context(), now: LayerWorld.now)
        #expect(layer.profile == .layer)
        #expect(layer.userID == LayerWorld.userID)
        #expect(layer.nonce == LayerWorld.nonce)
        #expect(layer.issuedAt == LayerWorld.now - 10)
        #expect(layer.expiresAt == LayerWorld.now + 110)
        #expect(layer.providerID == LayerWorld.providerID)
        #expect(layer.keyID == LayerWorld.keyID)
        #expect(layer.applicationKey == nil)
        #expect(layer.identity == IdentityClaims())

        let idToken = try await TokenVerifier().verify(
            try IDTokenWorld.token(), appID: IDTokenWorld.appID, facts: IDTokenWorld.context(), now: IDTokenWorld.now)
        #expect(idToken.profile == .idToken && idToken.userID == LayerWorld.userID)
        #expect(idToken.providerID == IDTokenWorld.providerID && idToken.keyID == nil && idToken.sourceKeyID == IDTokenWorld.kid)
        #expect(idToken.replayDigest?.count == 32 && idToken.expiresAt == IDTokenWorld.now + 600)

        let sinch = try await TokenVerifier().verify(
            try SinchWorld.token(), appID: SinchWorld.appID,
            facts: SinchWorld.context(), now: SinchWorld.now)
        #expect(sinch.profile == .sinch)
        #expect(sinch.userID == "foo")
        #expect(sinch.applicationKey == SinchWorld.applicationKey)
    }

    @Test("each token yields exactly its reason", arguments: ReasonScenarios.all)
    func yieldsExactlyThatReason(_ scenario: Scenario) async throws {
        let built = try scenario.build()
        let rejection = try #require(await rejection(of: built.token, appID: built.appID, context: built.context, now: built.now))
        #expect(rejection.reason == scenario.expected, "\(scenario.name): hint \(rejection.hint ?? "-")")
        #expect(rejection.message == scenario.expected.message)
        if let param = scenario.param { #expect(rejection.param == param) }
        if let claim = scenario.claim { #expect(rejection.claim == claim) }
        if let hint = scenario.hint {
            #expect(rejection.hint?.contains(hint) == true, "hint was \(rejection.hint ?? "nil")")
        }
        // `data` detail: header reasons name the parameter, claim reasons name the claim.
        if (5...7).contains(scenario.expected.rank) { #expect(rejection.param != nil, "#\(scenario.expected.rank) without param") }
        if (13...15).contains(scenario.expected.rank) { #expect(rejection.claim != nil, "#\(scenario.expected.rank) without claim") }

        // The validation tool's first finding is the same rejection.
        let diagnosis = try await TokenVerifier().diagnose(built.token, appID: built.appID, facts: built.context, now: built.now)
        #expect(diagnosis.rejections.first == rejection)
        #expect(!diagnosis.isValid)
    }

    @Test("the per-reason tokens cover every reason of the table")
    func coverage() async throws {
        var produced = Set<RejectionReason>()
        for scenario in ReasonScenarios.perReason + ReasonScenarios.idTokens {
            let built = try scenario.build()
            do {
                _ = try await TokenVerifier().verify(built.token, appID: built.appID, facts: built.context, now: built.now)
            } catch let rejection as TokenRejection where rejection.reason == scenario.expected {
                produced.insert(rejection.reason)
            } catch {}
        }
        let missing = RejectionReason.allCases.filter { !produced.contains($0) }
        #expect(missing.isEmpty, "reasons never produced: \(missing.map(\.rawValue))")
        #expect(produced.count == 25)
    }

    struct StoreDown: Error, Equatable {}

    /// A world whose store fails every look-up.
    struct FailingContext: VerificationFactsProvider {
        func facts(for plan: TokenPlan, now: Int64) async throws -> VerificationFacts { throw StoreDown() }
    }

    @Test("a failing look-up is the context's error, never a verdict on the token; structural rules need no look-up")
    func contextErrorsPropagate() async throws {
        await #expect(throws: StoreDown()) {
            try await TokenVerifier().verify(try LayerWorld.token(), appID: LayerWorld.appID, facts: FailingContext(), now: LayerWorld.now)
        }
        await #expect(throws: StoreDown()) {
            try await TokenVerifier().verify(try SinchWorld.token(), appID: SinchWorld.appID, facts: FailingContext(), now: SinchWorld.now)
        }
        await #expect(throws: StoreDown()) {
            try await TokenVerifier().diagnose(try LayerWorld.token(), appID: LayerWorld.appID, facts: FailingContext(), now: LayerWorld.now)
        }
        // Rules #1–#8 are decided before any look-up.
        await #expect(throws: TokenRejection(.wrongJWSPartCount)) {
            try await TokenVerifier().verify("a.b", appID: LayerWorld.appID, facts: FailingContext(), now: LayerWorld.now)
        }
        var header = LayerWorld.header()
        header["alg"] = jsonString("none")
        let noneToken = try LayerWorld.token(header: header)
        let rejection = await #expect(throws: TokenRejection.self) {
            try await TokenVerifier().verify(noneToken, appID: LayerWorld.appID, facts: FailingContext(), now: LayerWorld.now)
        }
        #expect(rejection?.reason == .headerParamWrongValue)
    }

    // MARK: Leeway and calendar edges

    @Test("exp and iat leeway boundaries (60 s by default, configurable)")
    func leewayBoundaries() async throws {
        let now = LayerWorld.now
        func verdict(iat: Int64, exp: Int64, leeway: Int64 = 60) async throws -> RejectionReason? {
            let token = try LayerWorld.token(claims: LayerWorld.claims(iat: iat, exp: exp))
            do {
                _ = try await TokenVerifier(leewaySeconds: leeway).verify(
                    token, appID: LayerWorld.appID,
                    facts: LayerWorld.context(), now: now)
                return nil
            } catch let rejection as TokenRejection {
                return rejection.reason
            }
        }
        #expect(try await verdict(iat: now - 300, exp: now - 59) == nil)
        #expect(try await verdict(iat: now - 300, exp: now - 60) == .expired)
        #expect(try await verdict(iat: now + 60, exp: now + 300) == nil)
        #expect(try await verdict(iat: now + 61, exp: now + 300) == .notBefore)
        #expect(try await verdict(iat: now - 300, exp: now + 1, leeway: 0) == nil)
        #expect(try await verdict(iat: now - 300, exp: now, leeway: 0) == .expired)
        #expect(try await verdict(iat: now + 1, exp: now + 300, leeway: 0) == .notBefore)
    }

    @Test("Sinch at 00:30 UTC: a token dated yesterday is accepted, one dated the day before yesterday is not")
    func sinchJustAfterMidnight() async throws {
        let yesterday = try SinchWorld.token(
            header: SinchWorld.header(kid: "hkdfv1-20180102"),
            claims: SinchWorld.claims(iat: SinchDays.jan3 - 300, exp: SinchDays.jan3 + 3300))
        let verified = try await TokenVerifier().verify(
            yesterday, appID: SinchWorld.appID, facts: SinchWorld.context(),
            now: SinchDays.halfPastMidnight)
        #expect(verified.issuedAt == SinchDays.jan3 - 300)

        // Tomorrow's date is accepted too (the minter's clock ahead), when it is iat's day.
        let tomorrow = try SinchWorld.token(
            header: SinchWorld.header(kid: "hkdfv1-20180104"),
            claims: SinchWorld.claims(iat: SinchDays.jan3 + 86_400 + 10, exp: SinchDays.jan3 + 86_400 + 700))
        _ = try await TokenVerifier().verify(
            tomorrow, appID: SinchWorld.appID, facts: SinchWorld.context(),
            now: SinchDays.jan3 + 86_400 - 20)

        let dayBefore = try SinchWorld.token(
            header: SinchWorld.header(kid: "hkdfv1-20180101"),
            claims: SinchWorld.claims(iat: SinchDays.jan3 - 86_400 - 300, exp: SinchDays.halfPastMidnight + 3600))
        let diagnosis = try await TokenVerifier().diagnose(
            dayBefore, appID: SinchWorld.appID, facts: SinchWorld.context(),
            now: SinchDays.halfPastMidnight)
        #expect(diagnosis.rejections.map(\.reason) == [.keyNotFound])
        #expect(diagnosis.rejections.first?.param == "kid")
    }

    // MARK: diagnose (collect-all)

    @Test("diagnose lists every problem in rank order; its first is what verify throws")
    func diagnoseListsAll() async throws {
        var header = LayerWorld.header()
        header["typ"] = jsonString("JOSE")
        var claims = LayerWorld.claims(iat: LayerWorld.now - 3600, exp: LayerWorld.now - 3000)
        claims["nce"] = nil
        claims["prn"] = "true"
        let token = try LayerWorld.token(header: header, claims: claims, key: TestKeys.attacker.privateKey)
        let context = LayerWorld.context()
        let diagnosis = try await TokenVerifier().diagnose(token, appID: LayerWorld.appID, facts: context, now: LayerWorld.now)
        let expected: [TokenRejection] = [
            TokenRejection(.headerParamWrongValue, param: "typ"),
            TokenRejection(.signatureVerificationFailed),
            TokenRejection(.claimNotFound, claim: "nce"),
            TokenRejection(.claimWrongType, claim: "prn"),
            TokenRejection(.expired, claim: "exp"),
        ]
        #expect(diagnosis.rejections.map(\.reason) == expected.map(\.reason))
        #expect(diagnosis.rejections.map(\.param) == expected.map(\.param))
        #expect(diagnosis.rejections.map(\.claim) == expected.map(\.claim))
        #expect(diagnosis.rejections.map(\.reason.rank) == diagnosis.rejections.map(\.reason.rank).sorted())
        #expect(diagnosis.profile == .layer)
        #expect(diagnosis.header["typ"] == "JOSE")
        #expect(diagnosis.claims["prn"] == .bool(true))
        let thrown = await rejection(of: token, appID: LayerWorld.appID, context: context, now: LayerWorld.now)
        #expect(thrown == diagnosis.rejections.first)
    }

    @Test("diagnose of a Sinch token with several problems")
    func diagnoseSinch() async throws {
        var claims = SinchWorld.claims(exp: SinchWorld.iat + 30)
        claims["sub"] = jsonString(SinchWorld.issuer + "/users/")
        let token = try SinchWorld.token(claims: claims)
        let context = SinchWorld.context(secretApp: SinchWorld.otherAppID)
        let diagnosis = try await TokenVerifier().diagnose(token, appID: SinchWorld.appID, facts: context, now: SinchWorld.now)
        #expect(diagnosis.rejections.map(\.reason) == [.claimWrongValue, .providerNotBoundToApp, .ttlTooShort])
        #expect(diagnosis.profile == .sinch)
        let thrown = await rejection(of: token, appID: SinchWorld.appID, context: context, now: SinchWorld.now)
        #expect(thrown == diagnosis.rejections.first)
    }

    @Test("diagnose of a valid token is empty, and the claim look-ups were made")
    func diagnoseValid() async throws {
        let context = LayerWorld.context()
        let diagnosis = try await TokenVerifier().diagnose(
            try LayerWorld.token(), appID: LayerWorld.appID, facts: context,
            now: LayerWorld.now)
        #expect(diagnosis.isValid)
        #expect(diagnosis.rejections.isEmpty)
        #expect(diagnosis.claims["prn"] == .string(LayerWorld.userID))
        #expect(diagnosis.header["kid"] == .string(LayerID.key(LayerWorld.keyID)))
        // The facts are asked for once, whatever the number of rules that read them.
        #expect(context.log.all == ["facts"])
    }

    @Test("diagnose of an undecodable token: the structural reason only, no header, no profile")
    func diagnoseUndecodable() async throws {
        let context = LayerWorld.context()
        let diagnosis = try await TokenVerifier().diagnose("not a token", appID: LayerWorld.appID, facts: context, now: LayerWorld.now)
        #expect(diagnosis.rejections.map(\.reason) == [.wrongJWSPartCount])
        #expect(diagnosis.header.isEmpty)
        #expect(diagnosis.claims.isEmpty)
        #expect(diagnosis.profile == nil)
        #expect(context.log.all.isEmpty)
    }

    @Test("a bad signature: facts named by claims (provider, nonce, user) never change the verdict or the diagnosis")
    func badSignatureIgnoresClaimFacts() async throws {
        // Layer: every fact a claim names is bad, and only the signature may be reported.
        let layerToken = try LayerWorld.token(key: TestKeys.attacker.privateKey)
        var hostile = LayerWorld.context()
        hostile.providers[LayerWorld.providerID] = [LayerWorld.otherAppID]
        hostile.usableNonces = []
        hostile.suspendedUsers = [LayerWorld.userID]
        let thrown = await rejection(of: layerToken, appID: LayerWorld.appID, context: hostile, now: LayerWorld.now)
        #expect(thrown?.reason == .signatureVerificationFailed)
        let diagnosis = try await TokenVerifier().diagnose(layerToken, appID: LayerWorld.appID, facts: hostile, now: LayerWorld.now)
        #expect(diagnosis.rejections.map(\.reason) == [.signatureVerificationFailed])
        // The control: the same facts with a good signature are reported.
        let signed = try await TokenVerifier().diagnose(try LayerWorld.token(), appID: LayerWorld.appID, facts: hostile, now: LayerWorld.now)
        #expect(signed.rejections.map(\.reason) == [.providerNotBoundToApp, .nonceNotFound, .userSuspended])

        // Sinch: a replayed nonce and a suspended user, under a wrong secret.
        let sinchToken = try SinchWorld.token(secret: Array(repeating: 1, count: 16))
        var sinchHostile = SinchWorld.context()
        sinchHostile.seenRegistrationNonces = [SinchWorld.nonce]
        sinchHostile.suspendedUsers = ["foo"]
        #expect(
            await rejection(of: sinchToken, appID: SinchWorld.appID, context: sinchHostile, now: SinchWorld.now)?.reason
                == .signatureVerificationFailed)
        let sinchDiagnosis = try await TokenVerifier().diagnose(sinchToken, appID: SinchWorld.appID, facts: sinchHostile, now: SinchWorld.now)
        #expect(sinchDiagnosis.rejections.map(\.reason) == [.signatureVerificationFailed])
        let sinchSigned = try await TokenVerifier().diagnose(
            try SinchWorld.token(), appID: SinchWorld.appID, facts: sinchHostile,
            now: SinchWorld.now)
        #expect(sinchSigned.rejections.map(\.reason) == [.nonceReplayed, .userSuspended])
    }
}
