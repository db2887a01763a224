import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTestSupport
import VouchTokens
import _CryptoExtras

@Suite("Hostile inputs")
struct HostileInputTests {
    func layerRejection(
        _ token: String, context: TestContext = LayerWorld.context(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> TokenRejection? {
        await rejection(of: token, appID: LayerWorld.appID, context: context, now: LayerWorld.now, sourceLocation: sourceLocation)
    }

    // MARK: Algorithm confusion

    @Test("alg none / None with an empty signature is refused", arguments: ["none", "None", "NONE"])
    func algNone(alg: String) async throws {
        var header = LayerWorld.header()
        header["alg"] = jsonString(alg)
        let token = JWS.signingInput(header: header.bytes, claims: LayerWorld.claims().bytes) + "."
        let layer = await layerRejection(token)
        #expect(layer?.reason == .headerParamWrongValue)
        #expect(layer?.param == "alg")

        var sinchHeader = SinchWorld.header()
        sinchHeader["alg"] = jsonString(alg)
        let sinchToken = JWS.signingInput(header: sinchHeader.bytes, claims: SinchWorld.claims().bytes) + "."
        let sinch = await rejection(of: sinchToken, appID: SinchWorld.appID, context: SinchWorld.context(), now: SinchWorld.now)
        #expect(sinch?.reason == .headerParamWrongValue)
        #expect(sinch?.param == "alg")
    }

    @Test("HS256 signed with the provider's public key as HMAC secret is never accepted by the Layer profile")
    func hs256WithPublicKeyAsSecret() async throws {
        let publicKey = TestKeys.provider.privateKey.publicKey
        let secrets: [[UInt8]] = [
            Array(publicKey.pemRepresentation.utf8), Array((publicKey.pemRepresentation + "\n").utf8),
            Array(publicKey.pkcs1PEMRepresentation.utf8), Array(publicKey.derRepresentation),
        ]
        for secret in secrets {
            var header = LayerWorld.header()
            header["alg"] = jsonString("HS256")
            let token = JWS.hs256(header: header.bytes, claims: LayerWorld.claims().bytes, key: SymmetricKey(data: secret))
            let context = LayerWorld.context()
            let rejection = await layerRejection(token, context: context)
            #expect(rejection?.reason == .headerParamWrongValue)
            #expect(rejection?.param == "alg")
            let diagnosis = try await TokenVerifier().diagnose(token, appID: LayerWorld.appID, facts: context, now: LayerWorld.now)
            #expect(!diagnosis.isValid)
            #expect(diagnosis.rejections.contains { $0.reason == .signatureVerificationFailed })

            // Even with `alg` claiming RS256, the HMAC tag is no RSA signature.
            let disguised = JWS.hs256(header: LayerWorld.header().bytes, claims: LayerWorld.claims().bytes, key: SymmetricKey(data: secret))
            #expect(await layerRejection(disguised)?.reason == .signatureVerificationFailed)
        }
    }

    @Test("empty and truncated signatures fail the signature rule")
    func emptyAndTruncatedSignatures() async throws {
        let token = try LayerWorld.token()
        let parts = JWS.parts(token)
        let signature = try #require(Base64URL.decodeCanonical(parts[2]))
        let input = parts[0] + "." + parts[1]
        for variant in [
            [], Array(signature.prefix(1)), Array(signature.dropLast()), Array(signature.dropFirst()),
            signature + [0], Array(signature.prefix(128)),
        ] {
            let forged = input + "." + Base64URL.encode(variant)
            #expect(await layerRejection(forged)?.reason == .signatureVerificationFailed, "signature of \(variant.count) bytes")
        }
        // Sinch: empty and truncated HMAC tags.
        let sinch = try SinchWorld.token()
        let sinchParts = JWS.parts(sinch)
        let tag = try #require(Base64URL.decodeCanonical(sinchParts[2]))
        for variant in [[], Array(tag.prefix(16)), Array(tag.dropLast())] {
            let forged = sinchParts[0] + "." + sinchParts[1] + "." + Base64URL.encode(variant)
            #expect(
                await rejection(of: forged, appID: SinchWorld.appID, context: SinchWorld.context(), now: SinchWorld.now)?.reason
                    == .signatureVerificationFailed)
        }
    }

    @Test("any crit header is refused", arguments: [#"["exp"]"#, "[]", #""b64""#, #"["x-unknown"]"#])
    func critRefused(crit: String) async throws {
        var header = LayerWorld.header()
        header["crit"] = crit
        let layer = await layerRejection(try LayerWorld.token(header: header))
        #expect(layer?.reason == .headerParamWrongValue)
        #expect(layer?.param == "crit")

        var sinchHeader = SinchWorld.header()
        sinchHeader["crit"] = crit
        let sinch = await rejection(
            of: try SinchWorld.token(header: sinchHeader), appID: SinchWorld.appID,
            context: SinchWorld.context(), now: SinchWorld.now)
        #expect(sinch?.reason == .headerParamWrongValue)
        #expect(sinch?.param == "crit")
    }

    @Test("embedded jwk / jku / x5u / x5c naming an attacker's key are ignored: the registered key decides")
    func embeddedKeysIgnored() async throws {
        let attacker = try TestKeys.attacker.privateKey.publicKey.getKeyPrimitives()
        let jwk = #"{"kty":"RSA","n":"\#(Base64URL.encode(attacker.modulus))","e":"\#(Base64URL.encode(attacker.publicExponent))"}"#
        var header = LayerWorld.header()
        header["jwk"] = jwk
        header["jku"] = jsonString("https://attacker.example/jwks.json")
        header["x5u"] = jsonString("https://attacker.example/cert.pem")
        header["x5c"] = "[" + jsonString(Data(TestKeys.attacker.privateKey.publicKey.derRepresentation).base64EncodedString()) + "]"
        let context = LayerWorld.context()
        let forged = try LayerWorld.token(header: header, key: TestKeys.attacker.privateKey)
        #expect(await layerRejection(forged, context: context)?.reason == .signatureVerificationFailed)
        #expect(context.log.all == ["facts"])

        // The same header signed with the registered key is fine: the parameters are merely ignored.
        let genuine = try LayerWorld.token(header: header)
        let verified = try await TokenVerifier().verify(genuine, appID: LayerWorld.appID, facts: LayerWorld.context(), now: LayerWorld.now)
        #expect(verified.keyID == LayerWorld.keyID)
    }

    @Test(
        "kid with path traversal or SQL names no key; layer:///keys/ + garbage is malformed",
        arguments: [
            ("../../etc/passwd", RejectionReason.keyNotFound), ("' OR 1=1 --", .keyNotFound),
            ("layer:///keys/../../etc/passwd", .keyMalformed), ("layer:///keys/not-a-uuid", .keyMalformed),
            ("layer:///keys/' OR 1=1 --", .keyMalformed), ("layer:///keys/", .keyMalformed),
            ("", .keyNotFound), ("layer:///providers/7d3f5a10-9c2b-4c1e-8f7a-2b9e4d6c8a11", .keyNotFound),
            ("hkdfv1-20180102", .keyNotFound),
        ])
    func hostileKid(kid: String, expected: RejectionReason) async throws {
        let context = LayerWorld.context()
        let token = try LayerWorld.token(header: LayerWorld.header(kid: kid))
        let rejection = await layerRejection(token, context: context)
        #expect(rejection?.reason == expected)
        #expect(rejection?.param == "kid")
        // A kid that is not a key id names no uploaded key; it is only ever looked for among the
        // fetched keys of the provider `iss` names (PROTOCOL §8.18), which this world's has none of.
        let plan = TokenVerifier().plan(token, appID: LayerWorld.appID)
        #expect(plan.keyID == nil, "a kid that is not a key id must not reach the key store")
        if expected == .keyMalformed || kid.isEmpty {
            #expect(context.log.all.isEmpty)
        } else {
            #expect(plan.sourceKeyID == kid && plan.sourceProvider == .id(LayerWorld.providerID))
        }
    }

    @Test("kid as a bare UUID in upper case names the same key")
    func bareUpperCaseKid() async throws {
        let token = try LayerWorld.token(header: LayerWorld.header(kid: LayerWorld.keyID.uuidString.uppercased()))
        let verified = try await TokenVerifier().verify(token, appID: LayerWorld.appID, facts: LayerWorld.context(), now: LayerWorld.now)
        #expect(verified.keyID == LayerWorld.keyID)
    }

    // MARK: Structure

    @Test("deep nesting: malformed_json without a crash (and 10 000 levels in the parser itself)")
    func deepNesting() async throws {
        // 10 000 levels cannot fit in an 8 KiB token; the parser is asked directly.
        for depth in [10_000, 100_000] {
            #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON().parse(Array(String(repeating: "[", count: depth).utf8)) }
            let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON().parse(Array(objects.utf8)) }
            let closed = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON().parse(Array(closed.utf8)) }
        }
        // The deepest document that fits in a token: in a header and in the claims.
        let deep = #"{"a":"# + String(repeating: "[", count: 2500) + String(repeating: "]", count: 2500) + "}"
        let inHeader = try LayerWorld.token(headerBytes: Array(deep.utf8), claimsBytes: Array("{}".utf8))
        #expect(await layerRejection(inHeader)?.reason == .malformedJSON)
        let inClaims = try LayerWorld.token(headerBytes: LayerWorld.header().bytes, claimsBytes: Array(deep.utf8))
        #expect(inHeader.utf8.count <= 8192 && inClaims.utf8.count <= 8192, "must stay under the size limit to reach the parser")
        #expect(await layerRejection(inClaims)?.reason == .malformedJSON)
        // 10 000 levels in a token: refused by size first.
        let tooDeep = String(repeating: "[", count: 10_000)
        #expect(await layerRejection(Base64URL.encode(Array(tooDeep.utf8)) + ".e30.")?.reason == .tokenTooLarge)
    }

    @Test("nesting limit: 32 levels parse, 33 do not")
    func nestingLimit() throws {
        let ok = String(repeating: "[", count: 31) + String(repeating: "]", count: 31)
        #expect(try StrictJSON().parseObject(Array((#"{"a":"# + ok + "}").utf8))["a"] != nil)
        let over = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON().parseObject(Array((#"{"a":"# + over + "}").utf8)) }
    }

    @Test("100 000 dots: token_too_large; 8 KiB exactly is parsed")
    func tooLarge() async throws {
        #expect(await layerRejection(String(repeating: ".", count: 100_000))?.reason == .tokenTooLarge)
        #expect(await layerRejection(String(repeating: "A", count: 8193))?.reason == .tokenTooLarge)
        #expect(await layerRejection(String(repeating: "A", count: 8192))?.reason == .wrongJWSPartCount)
        #expect(await layerRejection(String(repeating: ".", count: 8192))?.reason == .wrongJWSPartCount)
    }

    @Test("non-UTF-8 bytes in header or claims: malformed_json")
    func invalidUTF8() async throws {
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF8, 0x88, 0x80, 0x80, 0x80]] {
            let header =
                Array(#"{"typ":"JWT","alg":"RS256","cty":"layer-eit;v=1","kid":"#.utf8)
                + Array(jsonString(LayerID.key(LayerWorld.keyID)).utf8) + Array(#","x":""#.utf8) + bad + Array("\"}".utf8)
            let inHeader = try LayerWorld.token(headerBytes: header, claimsBytes: LayerWorld.claims().bytes)
            #expect(await layerRejection(inHeader)?.reason == .malformedJSON)

            let claims = Array(#"{"iss":"x","prn":"a"#.utf8) + bad + Array(#"","iat":1,"exp":2,"nce":"n"}"#.utf8)
            let inClaims = try LayerWorld.token(headerBytes: LayerWorld.header().bytes, claimsBytes: claims)
            #expect(await layerRejection(inClaims)?.reason == .malformedJSON)
        }
    }

    @Test(
        "claims with hostile values",
        arguments: [
            ("prn", #""al\u0000ice""#, RejectionReason.claimWrongValue),
            ("prn", #""alice\u001b[31m""#, .claimWrongValue),
            ("prn", #""a\u007f""#, .claimWrongValue),
            ("iat", #""1700000000""#, .claimWrongType),
            ("iat", "1699999990.5", .claimWrongType),
            ("iat", "1699999990.0", .claimWrongType),
            ("iat", "1.7e9", .claimWrongType),
            ("iat", "1699999990E0", .claimWrongType),
            ("iat", "99999999999999999999", .claimWrongValue),
            ("iat", "-9223372036854775809", .claimWrongValue),
            ("exp", "null", .claimWrongType),
            ("exp", "true", .claimWrongType),
            ("nce", "[\"n\"]", .claimWrongType),
            ("display_name", "12", .claimWrongType),
        ])
    func hostileClaimValues(name: String, raw: String, expected: RejectionReason) async throws {
        var claims = LayerWorld.claims()
        claims[name] = raw
        let rejection = await layerRejection(try LayerWorld.token(claims: claims))
        #expect(rejection?.reason == expected)
        #expect(rejection?.claim == name)
    }

    @Test("a null optional claim counts as absent")
    func nullOptionalClaim() async throws {
        var claims = LayerWorld.claims()
        claims["display_name"] = "null"
        claims["first_name"] = jsonString("Alice")
        let verified = try await TokenVerifier().verify(
            try LayerWorld.token(claims: claims), appID: LayerWorld.appID,
            facts: LayerWorld.context(), now: LayerWorld.now)
        #expect(verified.identity == IdentityClaims(firstName: "Alice"))
    }

    @Test("duplicate member names in header or claims: malformed_json")
    func duplicateNames() async throws {
        var header = LayerWorld.header()
        header.append("alg", jsonString("none"))
        #expect(await layerRejection(try LayerWorld.token(header: header))?.reason == .malformedJSON)
        var sameValue = LayerWorld.header()
        sameValue.append("typ", jsonString("JWT"))
        #expect(await layerRejection(try LayerWorld.token(header: sameValue))?.reason == .malformedJSON)

        var claims = LayerWorld.claims()
        claims.append("prn", jsonString("mallory"))
        #expect(await layerRejection(try LayerWorld.token(claims: claims))?.reason == .malformedJSON)
        // The same name spelled with an escape is the same name.
        let escapedClaims = Array(LayerWorld.claims().text.dropLast().utf8) + Array(#","p\u0072n":"mallory"}"#.utf8)
        #expect(
            await layerRejection(try LayerWorld.token(headerBytes: LayerWorld.header().bytes, claimsBytes: escapedClaims))?.reason
                == .malformedJSON)
        // Nested duplicates too.
        var nested = LayerWorld.claims()
        nested["extra"] = #"{"a":1,"a":2}"#
        #expect(await layerRejection(try LayerWorld.token(claims: nested))?.reason == .malformedJSON)
    }

    @Test("non-canonical base64url in any part: malformed_base64url")
    func nonCanonicalBase64URL() async throws {
        let token = try LayerWorld.token()
        let parts = JWS.parts(token)
        var variants: [(String, String)] = []
        for index in 0..<3 {
            func with(_ part: String) -> String {
                var copy = parts
                copy[index] = part
                return copy.joined(separator: ".")
            }
            let part = parts[index]
            let padding = String(repeating: "=", count: (4 - part.count % 4) % 4 == 0 ? 4 : (4 - part.count % 4))
            variants.append(("padding on part \(index)", with(part + padding)))
            variants.append(("space in part \(index)", with(String(part.prefix(4)) + " " + String(part.dropFirst(4)))))
            variants.append(("newline in part \(index)", with(String(part.prefix(8)) + "\n" + String(part.dropFirst(8)))))
            variants.append(("tab at the end of part \(index)", with(part + "\t")))
            variants.append(("non-ASCII in part \(index)", with(String(part.prefix(4)) + "é" + String(part.dropFirst(5)))))
        }
        // `+` and `/` in place of `-` and `_`.
        let signature = parts[2]
        if let dash = signature.firstIndex(where: { $0 == "-" || $0 == "_" }) {
            var replaced = signature
            replaced.replaceSubrange(dash...dash, with: signature[dash] == "-" ? "+" : "/")
            variants.append(("+ or / in the signature", parts[0] + "." + parts[1] + "." + replaced))
        } else {
            Issue.record("the signature happens to contain neither - nor _ (re-run with another key)")
        }
        variants.append(("+ in the header", "+" + parts[0].dropFirst() + "." + parts[1] + "." + parts[2]))
        variants.append(("/ in the claims", parts[0] + "." + "/" + parts[1].dropFirst() + "." + parts[2]))
        // Non-zero unused trailing bits: a 256-byte signature is 342 characters with 4 unused bits.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        #expect(signature.count == 342)
        let last = try #require(alphabet.firstIndex(of: signature.last!))
        #expect(last % 16 == 0, "canonical form has zero unused bits")
        let dirty = String(signature.dropLast()) + String(alphabet[last + 1])
        variants.append(("non-zero trailing bits in the signature", parts[0] + "." + parts[1] + "." + dirty))
        // The header and claims parts with non-zero trailing bits, where they have unused bits.
        for index in 0..<2 where parts[index].count % 4 != 0 {
            let part = parts[index]
            let value = try #require(alphabet.firstIndex(of: part.last!))
            var copy = parts
            copy[index] = String(part.dropLast()) + String(alphabet[value | 1])
            variants.append(("non-zero trailing bits in part \(index)", copy.joined(separator: ".")))
        }

        for (name, variant) in variants {
            let rejection = await layerRejection(variant)
            #expect(rejection?.reason == .malformedBase64URL, "\(name): got \(rejection?.reason.rawValue ?? "acceptance")")
        }
        #expect(variants.count >= 20)

        // Rule #3 outranks #4 across parts: bad base64url anywhere beats bad JSON anywhere else,
        // whichever part is decoded first; with only bad JSON, the header is named before the claims.
        let notJSON = Base64URL.encode(Array("not json".utf8))
        for (jsonPart, base64Part) in [(0, 1), (0, 2), (1, 0), (1, 2)] {
            var copy = parts
            copy[jsonPart] = notJSON
            copy[base64Part] = "*" + copy[base64Part].dropFirst()
            let rejection = await layerRejection(copy.joined(separator: "."))
            #expect(rejection?.reason == .malformedBase64URL, "JSON in part \(jsonPart), base64 in \(base64Part)")
        }
        let bothBad = await layerRejection([notJSON, notJSON, parts[2]].joined(separator: "."))
        #expect(bothBad?.reason == .malformedJSON && bothBad?.hint?.hasPrefix("header:") == true)
        let claimsBad = await layerRejection([parts[0], notJSON, parts[2]].joined(separator: "."))
        #expect(claimsBad?.reason == .malformedJSON && claimsBad?.hint?.hasPrefix("claims:") == true)
    }

    @Test(
        "empty parts",
        arguments: [
            ("..", RejectionReason.malformedJSON), (".", .wrongJWSPartCount), ("", .wrongJWSPartCount), ("...", .wrongJWSPartCount),
            ("e30..", .malformedJSON), (".e30.", .malformedJSON), ("e30.e30.", .headerParamNotFound),
        ])
    func emptyParts(token: String, expected: RejectionReason) async throws {
        #expect(await layerRejection(token)?.reason == expected)
    }

    @Test("a valid header and claims with an empty claims part or empty signature")
    func emptyPartsOfAValidToken() async throws {
        let parts = JWS.parts(try LayerWorld.token())
        #expect(await layerRejection(parts[0] + "." + parts[1] + ".")?.reason == .signatureVerificationFailed)
        #expect(await layerRejection(parts[0] + ".." + parts[2])?.reason == .malformedJSON)
        #expect(await layerRejection("." + parts[1] + "." + parts[2])?.reason == .malformedJSON)
    }

    // MARK: Unicode look-alikes

    @Test("cty compared byte for byte: U+037E GREEK QUESTION MARK is not ';'")
    func ctyCanonicalEquivalent() async throws {
        // U+037E is canonically equivalent to ';' (Swift's String == says they are equal), but it is
        // not the bytes of `layer-eit;v=1`: a strict verifier must refuse it.
        var header = LayerWorld.header()
        header["cty"] = jsonString("layer-eit\u{037E}v=1")
        let rejection = await layerRejection(try LayerWorld.token(header: header))
        #expect(rejection?.reason == .headerParamWrongValue)
        #expect(rejection?.param == "cty")
    }

    // MARK: Numeric edges that must not crash

    @Test("Sinch iat at Int64.min is refused without crashing the process")
    func sinchExtremeIAT() async {
        await #expect(processExitsWith: .success) {
            var claims = SinchWorld.claims()
            claims["iat"] = "-9223372036854775808"
            do {
                let token = try SinchWorld.token(claims: claims)
                _ = try await TokenVerifier().verify(token, appID: SinchWorld.appID, facts: SinchWorld.context(), now: SinchWorld.now)
                exit(2)  // accepted: wrong
            } catch let rejection as TokenRejection {
                exit([.claimWrongValue, .keyNotFound].contains(rejection.reason) ? 0 : 3)
            } catch {
                exit(4)
            }
        }
    }

    @Test("Sinch iat at Int64.min through diagnose, with an unknown application key")
    func sinchExtremeIATDiagnose() async {
        await #expect(processExitsWith: .success) {
            var claims = SinchWorld.claims()
            claims["iat"] = "-9223372036854775808"
            do {
                let token = try SinchWorld.token(claims: claims)
                let diagnosis = try await TokenVerifier().diagnose(token, appID: SinchWorld.appID, facts: TestContext(), now: SinchWorld.now)
                exit(diagnosis.isValid ? 2 : 0)
            } catch {
                exit(4)
            }
        }
    }

    // MARK: Fuzz

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)

    /// verify and diagnose agree: the first finding of diagnose is what verify throws.
    func checkAgreement(_ token: String, context: TestContext, appID: UUID, now: Int64, original: String) async throws -> Bool {
        var thrown: TokenRejection?
        do {
            _ = try await TokenVerifier().verify(token, appID: appID, facts: context, now: now)
            #expect(token == original, "a modified token was accepted: \(token.prefix(80))")
            return true
        } catch let rejection as TokenRejection {
            thrown = rejection
        }
        let diagnosis = try await TokenVerifier().diagnose(token, appID: appID, facts: context, now: now)
        #expect(!diagnosis.isValid)
        #expect(diagnosis.rejections.first == thrown, "verify and diagnose disagree on \(token.prefix(80))")
        return false
    }

    @Test("2000 random strings through verify and diagnose: always a TokenRejection")
    func randomStrings() async throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        let context = LayerWorld.context()
        var reasons: [RejectionReason: Int] = [:]
        for round in 0..<2000 {
            let length = Int.random(in: 0...400, using: &random)
            let token: String
            switch round % 3 {
            case 0:
                token = String(decoding: random.bytes(length), as: UTF8.self)
            case 1:
                token = String(decoding: (0..<length).map { _ in Self.alphabet.randomElement(using: &random)! }, as: UTF8.self)
            default:
                // Three canonical parts: reaches the JSON and header rules.
                let header = Bool.random(using: &random) ? Array(#"{"typ":"JWT","alg":"RS256"}"#.utf8) : random.bytes(length / 4)
                let claims = Bool.random(using: &random) ? Array(#"{"prn":"x"}"#.utf8) : random.bytes(length / 4)
                token = [header, claims, random.bytes(length / 8)].map { Base64URL.encode($0) }.joined(separator: ".")
            }
            do {
                _ = try await TokenVerifier().verify(token, appID: LayerWorld.appID, facts: context, now: LayerWorld.now)
                Issue.record("random string accepted: \(token)")
            } catch let rejection as TokenRejection {
                reasons[rejection.reason, default: 0] += 1
                let diagnosis = try await TokenVerifier().diagnose(token, appID: LayerWorld.appID, facts: context, now: LayerWorld.now)
                #expect(diagnosis.rejections.first == rejection)
            }
        }
        print("random strings by reason: \(reasons.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" })")
        #expect(reasons.values.reduce(0, +) == 2000)
        #expect(reasons.count >= 4, "the generator should reach the structural rules and the header rules")
    }

    enum Mutation: CaseIterable { case flip, insert, delete }

    static func mutate(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var copy = bytes
        switch Mutation.allCases.randomElement(using: &random)! {
        case .flip:
            let index = Int.random(in: 0..<copy.count, using: &random)
            copy[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
        case .insert:
            let index = Int.random(in: 0...copy.count, using: &random)
            let byte = Bool.random(using: &random) ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            copy.insert(byte, at: index)
        case .delete:
            copy.remove(at: Int.random(in: 0..<copy.count, using: &random))
        }
        return copy
    }

    @Test("2000 mutations of a valid Layer token and 1000 of a Sinch token: only the original verifies")
    func mutations() async throws {
        var random = SeededGenerator(seed: 0x5EED_0002)
        let layer = try LayerWorld.token()
        let layerContext = LayerWorld.context()
        #expect(try await checkAgreement(layer, context: layerContext, appID: LayerWorld.appID, now: LayerWorld.now, original: layer))
        var accepted = 0
        for _ in 0..<2000 {
            let mutated = String(decoding: Self.mutate(Array(layer.utf8), using: &random), as: UTF8.self)
            if try await checkAgreement(mutated, context: layerContext, appID: LayerWorld.appID, now: LayerWorld.now, original: layer) {
                accepted += 1
            }
        }
        let sinch = try SinchWorld.token()
        let sinchContext = SinchWorld.context()
        for _ in 0..<1000 {
            let mutated = String(decoding: Self.mutate(Array(sinch.utf8), using: &random), as: UTF8.self)
            if try await checkAgreement(mutated, context: sinchContext, appID: SinchWorld.appID, now: SinchWorld.now, original: sinch) {
                accepted += 1
            }
        }
        #expect(accepted == 0)
    }
}
