import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTestSupport
import VouchTokens
import _CryptoExtras

@Suite("Base64URL")
struct Base64URLTests {
    @Test("round trip of 0…64 random bytes, and the same text as Foundation's base64 in URL form")
    func roundTrip() throws {
        var random = SeededGenerator(seed: 64)
        for length in 0...64 {
            for _ in 0..<8 {
                let bytes = random.bytes(length)
                let text = Base64URL.encode(bytes)
                #expect(text == foundationBase64URLEncode(bytes), "length \(length)")
                #expect(text.count == (length * 4 + 2) / 3)
                #expect(!text.contains("="))
                #expect(Base64URL.decodeCanonical(text) == bytes, "length \(length)")
            }
        }
        #expect(Base64URL.decodeCanonical("") == [])
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decodeCanonical("-_8") == [0xFB, 0xFF])
    }

    @Test(
        "non-canonical spellings are refused",
        arguments: [
            "QQ==", "QQ=", "QUI=", "Q", "QUJDR", "+/8", "-_+", "QU/", "QQ ", " QQ", "Q Q", "QQ\n", "QU\tI",
            "QR", "QUJ", "QUK", "AB", "AAB", "//", "é", "QQ\u{0}",
        ])
    func refusesNonCanonical(text: String) {
        #expect(Base64URL.decodeCanonical(text) == nil)
    }

    @Test("every 2- and 3-character tail: exactly the zero-unused-bit ones decode")
    func trailingBits() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for (index, character) in alphabet.enumerated() {
            let two = "A" + String(character)
            #expect((Base64URL.decodeCanonical(two) != nil) == (index % 16 == 0), "\(two)")
            let three = "AA" + String(character)
            #expect((Base64URL.decodeCanonical(three) != nil) == (index % 4 == 0), "\(three)")
        }
    }
}

@Suite("StrictJSON")
struct StrictJSONTests {
    func parse(_ text: String) throws -> JSONValue { try StrictJSON().parse(Array(text.utf8)) }

    @Test("RFC 8259 examples and escapes are accepted")
    func acceptsRFC8259() throws {
        let image = """
            {
              "Image": {
                "Width":  800,
                "Height": 600,
                "Title":  "View from 15th Floor",
                "Thumbnail": {
                  "Url":    "http://www.example.com/image/481989943",
                  "Height": 125,
                  "Width":  100
                },
                "Animated" : false,
                "IDs": [116, 943, 234, 38793]
              }
            }
            """
        let object = try StrictJSON().parseObject(Array(image.utf8))
        let inner = try #require(object["Image"]?.objectValue)
        #expect(inner["Width"]?.integerValue == 800)
        #expect(inner["Title"] == "View from 15th Floor")
        #expect(inner["Animated"] == .bool(false))
        #expect(inner["Thumbnail"]?.objectValue?["Url"] == "http://www.example.com/image/481989943")
        #expect(inner["IDs"] == .array([116, 943, 234, 38793]))

        let array = """
            [
              {"precision": "zip", "Latitude": 37.7668, "Longitude": -122.3959, "Address": "",
               "City": "SAN FRANCISCO", "State": "CA", "Zip": "94107", "Country": "US"},
              {"precision": "zip", "Latitude": 37.371991, "Longitude": -122.026020, "Address": "",
               "City": "SUNNYVALE", "State": "CA", "Zip": "94085", "Country": "US"}
            ]
            """
        guard case .array(let places) = try parse(array) else {
            Issue.record("not an array")
            return
        }
        #expect(places.count == 2)
        #expect(places[1].objectValue?["Longitude"] == .number(JSONNumber(literal: "-122.026020")))

        let escapes = try StrictJSON().parseObject(Array(#"{"s":"\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00\u0000x"}"#.utf8))
        #expect(escapes["s"] == .string("\"\\/\u{08}\u{0C}\n\r\t\u{E9}\u{20AC}\u{1F600}\u{0}x"))
        #expect(try StrictJSON().parseObject(Array("{\"é\":\"😀\"}".utf8))["é"] == "😀")
        #expect(try parse(" \t\r\n{ } \n") == .object([:]))
        #expect(try parse("[]") == .array([]))
        #expect(try parse("[null,true,false]") == .array([.null, .bool(true), .bool(false)]))
        for literal in ["0", "-0", "12", "-12", "1.5", "1e9", "1E+9", "1.25e-3", "-0.0"] {
            #expect(try parse("[\(literal)]") == .array([.number(JSONNumber(literal: literal))]), "\(literal)")
        }
        #expect(JSONNumber(literal: "1700000000").integerValue == 1_700_000_000)
        #expect(JSONNumber(literal: "1.7e9").integerValue == nil)
        #expect(JSONNumber(literal: "1700000000.0").integerValue == nil)
    }

    @Test(
        "invalid JSON is refused",
        arguments: [
            #"{"s":"\ud83d"}"#, #"{"s":"\ude00"}"#, #"{"s":"\ud83d\u0041"}"#, #"{"s":"\ud83dx"}"#, #"{"s":"\ud83d\\"}"#,
            "{\"s\":\"a\u{01}b\"}", "{\"s\":\"a\tb\"}", "{\"s\":\"a\nb\"}", "{\"s\":\"\u{1F}\"}",
            #"{"a":1,}"#, "[1,]", "[1,,2]", "{,}", #"{"a":01}"#, #"{"a":-01}"#, #"{"a":00}"#,
            #"{"a":1}x"#, #"{"a":1}{}"#, #"{"a":1}]"#, "{} []",
            "{'a':1}", "{a:1}", #"{"a":NaN}"#, #"{"a":Infinity}"#, #"{"a":+1}"#, #"{"a":.5}"#, #"{"a":1.}"#,
            #"{"a":1e}"#, #"{"a":1e+}"#, #"{"a":-}"#, #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":True}"#,
            #"{"a":1 /* c */}"#, #"{"a":"\x41"}"#, #"{"a":"\u12"}"#, #"{"a":"\U0041"}"#, #"{"a" 1}"#, #"{"a":1"#,
            #"{"a":"x"#, "", " ", "{", "\u{FEFF}{}", "{\"a\":1}\u{0}",
        ])
    func refusesInvalid(text: String) {
        #expect(throws: StrictJSON.Failure.self) { try StrictJSON().parse(Array(text.utf8)) }
    }

    @Test("specific failures: duplicates, depth, UTF-8, not an object")
    func specificFailures() {
        #expect(throws: StrictJSON.Failure.duplicateName("a")) { try StrictJSON().parseObject(Array(#"{"a":1,"a":1}"#.utf8)) }
        #expect(throws: StrictJSON.Failure.duplicateName("a")) { try StrictJSON().parseObject(Array(#"{"a":1,"\u0061":2}"#.utf8)) }
        #expect(throws: StrictJSON.Failure.notAnObject) { try StrictJSON().parseObject(Array("[1]".utf8)) }
        #expect(throws: StrictJSON.Failure.notAnObject) { try StrictJSON().parseObject(Array(#""s""#.utf8)) }
        #expect(throws: StrictJSON.Failure.invalidUTF8) { try StrictJSON().parse([UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")]) }
        #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON(maximumDepth: 2).parse(Array("[[[1]]]".utf8)) }
        #expect(throws: Never.self) { try StrictJSON(maximumDepth: 3).parse(Array("[[[1]]]".utf8)) }
        // Different names that differ only in case are different names.
        #expect(throws: Never.self) { try StrictJSON().parseObject(Array(#"{"a":1,"A":1}"#.utf8)) }
    }

    @Test("members in order: the same verdicts as the dictionary parser, duplicates past the list's reach too")
    func membersAgreeWithObjects() throws {
        let members = try StrictJSON().parseMembers(Array(#" {"z":1, "a":"x", "\u006D":[true], "n":{"k":null}} "#.utf8))
        #expect(members.members.map(\.name) == ["z", "a", "m", "n"])
        #expect(members["a"] == "x" && members["m"] == .array([.bool(true)]) && members["n"]?.objectValue?["k"] == .null)
        #expect(members["A"] == nil && members["zz"] == nil && members[""] == nil)
        #expect(members.dictionary == (try StrictJSON().parseObject(Array(#"{"z":1,"a":"x","m":[true],"n":{"k":null}}"#.utf8))))
        #expect(try StrictJSON().parseMembers(Array("{}".utf8)).count == 0)

        // Look-ups compare bytes; duplicates are refused by canonical equivalence (KELVIN SIGN is "K").
        let kelvin = try StrictJSON().parseMembers(Array("{\"\u{212A}\":1,\"k\":2}".utf8))
        #expect(kelvin["\u{212A}"] == 1 && kelvin["K"] == nil && kelvin["k"] == 2)
        #expect(throws: StrictJSON.Failure.duplicateName("K")) { try StrictJSON().parseMembers(Array("{\"\u{212A}\":1,\"K\":2}".utf8)) }
        // …whatever the values between them hold (an ASCII name after a non-ASCII value, and the reverse).
        #expect(throws: StrictJSON.Failure.duplicateName("K")) {
            try StrictJSON().parseMembers(Array("{\"\u{212A}\":\"é\",\"K\":2}".utf8))
        }
        #expect(throws: StrictJSON.Failure.duplicateName("\u{212A}")) {
            try StrictJSON().parseMembers(Array("{\"K\":\"x\",\"\u{212A}\":\"y\"}".utf8))
        }
        #expect(throws: StrictJSON.Failure.duplicateName("\u{212A}")) {
            try StrictJSON().parseMembers(Array(#"{"K":"x","\u212A":"y"}"#.utf8))
        }

        // A duplicate is found wherever it falls: among the first names (searched as a list) and
        // after many (kept in a set).
        for count in [2, 15, 16, 17, 40] {
            let names = (0..<count).map { "n\($0)" }
            for duplicate in [0, count / 2, count - 1] {
                let text = "{" + (names + [names[duplicate]]).map { "\"\($0)\":0" }.joined(separator: ",") + "}"
                #expect(throws: StrictJSON.Failure.duplicateName(names[duplicate]), "\(count) \(duplicate)") {
                    try StrictJSON().parseMembers(Array(text.utf8))
                }
            }
            let unique = "{" + names.map { "\"\($0)\":0" }.joined(separator: ",") + "}"
            #expect(try StrictJSON().parseMembers(Array(unique.utf8)).members.map(\.name) == names)
        }
        #expect(throws: StrictJSON.Failure.notAnObject) { try StrictJSON().parseMembers(Array("[1]".utf8)) }
        #expect(throws: StrictJSON.Failure.unexpectedByte(offset: 3)) { try StrictJSON().parseMembers(Array("[1,]".utf8)) }
        #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON(maximumDepth: 0).parseMembers(Array("{}".utf8)) }
        #expect(throws: StrictJSON.Failure.tooDeep) { try StrictJSON(maximumDepth: 1).parseMembers(Array(#"{"a":[]}"#.utf8)) }
        #expect(throws: StrictJSON.Failure.invalidUTF8) { try StrictJSON().parseMembers([UInt8(ascii: "{"), 0xC3, UInt8(ascii: "}")]) }
    }

    @Test(
        "refuses in members exactly what it refuses as a value",
        arguments: [
            #"{"s":"\ud83d"}"#, "{\"s\":\"a\u{01}b\"}", #"{"a":1,}"#, "{,}", #"{"a":01}"#, #"{"a":1}x"#, #"{"a":1}{}"#,
            "{'a':1}", "{a:1}", #"{"a" 1}"#, #"{"a":1"#, #"{"a":"x"#, "", " ", "{", "\u{FEFF}{}", "{\"a\":1}\u{0}",
            #"{"a":1,"a":2}"#, "{\"\u{E9}\":1,\"e\u{301}\":2}", #"{"a":{"b":1,"b":2}}"#, #"{"a":[1,{"c":{}}]}"#,
        ])
    func membersRefuseAsValues(text: String) {
        let asValue = Result { () throws(StrictJSON.Failure) in try StrictJSON().parseObject(Array(text.utf8)) }
        let asMembers = Result { () throws(StrictJSON.Failure) in try StrictJSON().parseMembers(Array(text.utf8)) }
        switch (asValue, asMembers) {
        case (.failure(let valueFailure), .failure(let membersFailure)): #expect(valueFailure == membersFailure)
        case (.success(let object), .success(let members)): #expect(object == members.dictionary)
        default: Issue.record("\(asValue) vs \(asMembers)")
        }
    }

    @Test("UTF-8 validation: the ASCII fast path and the full check agree", arguments: 0..<200)
    func utf8Validation(seed: Int) {
        var generator = SeededGenerator(seed: UInt64(seed))
        let length = Int.random(in: 0...40, using: &generator)
        // Mostly ASCII with an occasional high byte, so that both paths and every alignment run.
        let bytes = (0..<length).map { _ in
            Int.random(in: 0..<8, using: &generator) == 0
                ? UInt8.random(in: 0x80...0xFF, using: &generator)
                : UInt8.random(in: 0...0x7F, using: &generator)
        }
        // Validation comes before any other rule, so `invalidUTF8` is thrown exactly for invalid text.
        func refusedAsUTF8(_ bytes: [UInt8]) -> Bool {
            do { _ = try StrictJSON().parse(bytes) } catch { return error == .invalidUTF8 }
            return false
        }
        #expect(refusedAsUTF8(bytes) == (String(validating: bytes, as: UTF8.self) == nil))
        #expect(!refusedAsUTF8(Array("é😀".utf8) + bytes.filter { $0 < 0x80 }))
    }
}

@Suite("CivilDate")
struct CivilDateTests {
    static let gregorianUTC: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    func check(_ instant: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        let date = CivilDate(unixSeconds: instant)
        let parts = Self.gregorianUTC.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(instant)))
        #expect(
            date.year == parts.year && date.month == parts.month && date.day == parts.day,
            "\(instant): \(date) vs \(parts.year ?? 0)-\(parts.month ?? 0)-\(parts.day ?? 0)", sourceLocation: sourceLocation)
        let floorDays = instant >= 0 ? instant / 86_400 : -((-instant + 86_399) / 86_400)
        #expect(date.daysSinceEpoch == floorDays, "\(instant)", sourceLocation: sourceLocation)
        #expect(CivilDate(year: date.year, month: date.month, day: date.day) == date, sourceLocation: sourceLocation)
        #expect(CivilDate(compact: date.compact) == date, sourceLocation: sourceLocation)
        #expect(CivilDate(unixSeconds: date.daysSinceEpoch * 86_400) == date, sourceLocation: sourceLocation)
    }

    @Test("matches Foundation's Gregorian UTC calendar for 2000 random instants 1970…2200")
    func matchesFoundation() {
        var random = SeededGenerator(seed: 2200)
        let end: Int64 = 7_258_118_400  // 2200-01-01T00:00:00Z
        for _ in 0..<2000 { check(Int64.random(in: 0..<end, using: &random)) }
        // Day edges and the instants around them.
        for edge: Int64 in [
            0, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800, 1_514_851_199, 1_514_851_200,
            4_107_542_400, 4_107_628_799, end - 1, end, -1, -86_400, -86_401,
        ] {
            check(edge)
        }
    }

    @Test("leap days")
    func leapDays() throws {
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2400, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2100, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2023, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2024, month: 2, day: 30) == nil)
        #expect(CivilDate(year: 2024, month: 4, day: 31) == nil)
        #expect(CivilDate(year: 2024, month: 13, day: 1) == nil)
        #expect(CivilDate(year: 2024, month: 0, day: 1) == nil)
        #expect(CivilDate(year: 2024, month: 1, day: 0) == nil)
        let leap = try #require(CivilDate(year: 2024, month: 2, day: 29))
        #expect(leap.daysSinceEpoch == 19_782)
        #expect(CivilDate(unixSeconds: (leap.daysSinceEpoch + 1) * 86_400) == CivilDate(year: 2024, month: 3, day: 1))
        #expect(CivilDate(unixSeconds: (leap.daysSinceEpoch - 1) * 86_400) == CivilDate(year: 2024, month: 2, day: 28))
        #expect(CivilDate(unixSeconds: 951_782_400) == CivilDate(year: 2000, month: 2, day: 29))  // 2000-02-29T00:00:00Z
        #expect(CivilDate(unixSeconds: 4_107_542_400) == CivilDate(year: 2100, month: 3, day: 1))  // no 2100-02-29
        #expect(
            try #require(CivilDate(year: 2100, month: 3, day: 1)).daysSinceEpoch
                - (try #require(CivilDate(year: 2100, month: 2, day: 28))).daysSinceEpoch == 1)
    }

    @Test(
        "compact parsing",
        arguments: [
            ("20180102", "20180102"), ("20000229", "20000229"), ("00010101", "00010101"), ("99991231", "99991231"),
            ("2018010", nil), ("201801023", nil), ("2018-1-2", nil), ("20181301", nil), ("20180230", nil), ("20190229", nil),
            ("00000101", nil), ("2018010a", nil), ("+2018010", nil), ("２０１８０１０２", nil), ("", nil),
        ] as [(String, String?)])
    func compact(text: String, expected: String?) {
        #expect(CivilDate(compact: text)?.compact == expected)
    }
}

@Suite("Keys")
struct KeyTests {
    static let small: _RSA.Signing.PrivateKey = try! _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))

    @Test("PublicKeyInfo accepts SPKI and PKCS#1 public PEM, with one fingerprint")
    func acceptsPublicPEM() throws {
        let key = TestKeys.provider.privateKey.publicKey
        let spki = try PublicKeyInfo(pem: key.pemRepresentation)
        let pkcs1 = try PublicKeyInfo(pem: key.pkcs1PEMRepresentation)
        #expect(key.pemRepresentation.contains("BEGIN PUBLIC KEY"))
        #expect(key.pkcs1PEMRepresentation.contains("BEGIN RSA PUBLIC KEY"))
        #expect(spki.pem == key.pemRepresentation)
        #expect(pkcs1.pem == key.pemRepresentation)
        let expected = "sha256:" + Array(SHA256.hash(data: key.derRepresentation)).hex
        #expect(spki.fingerprint == expected)
        #expect(pkcs1.fingerprint == expected)
        #expect(TestKeys.provider.fingerprint == expected)
        #expect(spki.key.derRepresentation == key.derRepresentation)
        // CRLF line ends and surrounding white space are still the same key.
        let crlf = try PublicKeyInfo(pem: "\n" + key.pemRepresentation.replacingOccurrences(of: "\n", with: "\r\n") + "\n")
        #expect(crlf.fingerprint == expected)
        #expect(TestKeys.attacker.fingerprint != expected)
    }

    @Test("PublicKeyInfo refuses private keys, small keys and garbage")
    func refuses() throws {
        let privateKey = TestKeys.provider.privateKey
        #expect(throws: PublicKeyInfo.Failure.notAPublicKey) { try PublicKeyInfo(pem: privateKey.pemRepresentation) }
        #expect(throws: PublicKeyInfo.Failure.notAPublicKey) { try PublicKeyInfo(pem: privateKey.pkcs8PEMRepresentation) }
        // A private key with the words "PUBLIC KEY-----" nearby is still a private key.
        #expect(throws: PublicKeyInfo.Failure.notAPublicKey) {
            try PublicKeyInfo(pem: privateKey.pemRepresentation + "\n# this is not a PUBLIC KEY-----\n")
        }
        let relabelled = privateKey.pemRepresentation.replacingOccurrences(of: "RSA PRIVATE KEY", with: "RSA PUBLIC KEY")
        #expect(throws: PublicKeyInfo.Failure.notAPublicKey) { try PublicKeyInfo(pem: relabelled) }
        #expect(throws: PublicKeyInfo.Failure.tooSmall(bits: 1024)) { try PublicKeyInfo(pem: Self.small.publicKey.pemRepresentation) }
        for garbage in [
            "", "hello", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
            "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n", "-----BEGIN PUBLIC KEY-----",
        ] {
            #expect(throws: PublicKeyInfo.Failure.notAPublicKey) { try PublicKeyInfo(pem: garbage) }
        }
    }

    @Test("PublicKeyInfo refuses e ≠ 65537, moduli over 8192 bits and text around the PEM block")
    func refusesShapes() throws {
        func key(bits: Int, e: [UInt8] = [1, 0, 1]) throws -> _RSA.Signing.PublicKey {
            var n = (0..<bits / 8).map { _ in UInt8.random(in: 0...255) }
            n[0] |= 0x80
            n[n.count - 1] |= 1
            return try _RSA.Signing.PublicKey(n: n, e: e)
        }
        #expect(throws: PublicKeyInfo.Failure.unsupportedExponent) { try PublicKeyInfo(pem: try key(bits: 2048, e: [3]).pemRepresentation) }
        #expect(throws: PublicKeyInfo.Failure.unsupportedExponent) { try PublicKeyInfo(pem: HandMadeRSA.publicKeyPEM(bits: 2048, exponent: [3])) }
        #expect(throws: PublicKeyInfo.Failure.unsupportedExponent) { try PublicKeyInfo(pem: try key(bits: 2048, e: [1, 0, 0, 1]).pemRepresentation) }
        // Over 8192 bits BoringSSL does not parse the key at all; the message names the range.
        #expect(throws: PublicKeyInfo.Failure.notAPublicKey) { try PublicKeyInfo(pem: HandMadeRSA.publicKeyPEM(bits: 8200)) }
        #expect(PublicKeyInfo.Failure.notAPublicKey.message.contains("2048 to 8192 bits"))
        #expect(try PublicKeyInfo(pem: try key(bits: 8192).pemRepresentation).key.keySizeInBits == 8192)
        let pem = TestKeys.provider.publicKeyPEM
        for wrapped in ["x" + pem, pem + "x", pem + pem, "Subject: my key\n" + pem, pem + "\n-----END PUBLIC KEY-----"] {
            #expect(throws: PublicKeyInfo.Failure.textAroundPEM) { try PublicKeyInfo(pem: wrapped) }
        }
        #expect(try PublicKeyInfo(pem: "\r\n\t " + pem + "\n\n").fingerprint == TestKeys.provider.fingerprint)
        for failure in [PublicKeyInfo.Failure.notAPublicKey, .textAroundPEM, .tooSmall(bits: 1024), .tooLarge(bits: 9000), .unsupportedExponent] {
            #expect(!failure.message.isEmpty)
        }
    }

    @Test(
        "typ is a media type: JWT or JWS in any ASCII case, application/ optional",
        arguments: [
            "JWT", "JWS", "jwt", "jws", "Jws", "application/jwt", "APPLICATION/JWS", "application/JWT",
        ])
    func typSpellings(typ: String) async throws {
        var header = LayerWorld.header()
        header["typ"] = jsonString(typ)
        let token = try LayerWorld.token(header: header)
        let verified = try await TokenVerifier().verify(token, appID: LayerWorld.appID, facts: LayerWorld.context(), now: LayerWorld.now)
        #expect(verified.userID == LayerWorld.userID)
    }

    @Test(
        "typ values that only look like JWT are #7",
        arguments: [
            "JOSE", "JWE", "text/jwt", "application/", "application/jose", " JWT", "JWT ", "application/ jwt", "ＪＷＴ", "JWT\u{0}", "jwt+json",
            "applicationx/jwt", "application//jwt",
        ])
    func typLookalikes(typ: String) async throws {
        var header = LayerWorld.header()
        header["typ"] = jsonString(typ)
        let token = try LayerWorld.token(header: header)
        let rejection = await rejection(of: token, appID: LayerWorld.appID, context: LayerWorld.context(), now: LayerWorld.now)
        #expect(rejection?.reason == .headerParamWrongValue)
        #expect(rejection?.param == "typ")
    }

    @Test("RSAKeyPair: 2048 bits, PKCS#8 private PEM, SPKI public PEM; too small refused")
    func keyPair() throws {
        let pair = TestKeys.provider
        #expect(pair.privateKey.keySizeInBits == 2048)
        #expect(pair.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(pair.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(throws: MintingError.keyTooSmall(bits: 1024)) { try RSAKeyPair.generate(bits: 1024) }
        #expect(throws: MintingError.keyTooSmall(bits: 1024)) { try RSAKeyPair.privateKey(pem: Self.small.pemRepresentation) }
        #expect(throws: MintingError.self) { try RSAKeyPair.privateKey(pem: pair.publicKeyPEM) }
        #expect(throws: MintingError.self) { try RSAKeyPair.privateKey(pem: "garbage") }
    }
}

@Suite("Minters")
struct MinterTests {
    static func verifyLayer(_ token: String, keyID: UUID = LayerWorld.keyID, issuedAt: Int64) async throws -> VerifiedToken {
        try await TokenVerifier().verify(token, appID: LayerWorld.appID, facts: LayerWorld.context(), now: issuedAt + 5)
    }

    @Test("LayerTokenMinter(privateKeyPEM:) accepts PKCS#1 and PKCS#8; its tokens verify")
    func layerPEMForms() async throws {
        let key = TestKeys.provider.privateKey
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        #expect(key.pkcs8PEMRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        for pem in [key.pemRepresentation, key.pkcs8PEMRepresentation] {
            let minter = try LayerTokenMinter(privateKeyPEM: pem, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
            let token = try minter.mint(
                userID: LayerWorld.userID, nonce: LayerWorld.nonce, issuedAt: LayerWorld.now, ttl: 120,
                identity: IdentityClaims(
                    displayName: "Alice A.", firstName: "Alice", lastName: "A.",
                    avatarURL: "https://example.com/a.png"))
            let verified = try await Self.verifyLayer(token, issuedAt: LayerWorld.now)
            #expect(verified.userID == LayerWorld.userID)
            #expect(verified.expiresAt == LayerWorld.now + 120)
            #expect(
                verified.identity
                    == IdentityClaims(
                        displayName: "Alice A.", firstName: "Alice", lastName: "A.",
                        avatarURL: "https://example.com/a.png"))
            let inspection = try TokenInspector.inspect(token)
            #expect(inspection.header == ["typ": "JWT", "alg": "RS256", "cty": "layer-eit;v=1", "kid": .string(LayerID.key(LayerWorld.keyID))])
            #expect(inspection.claims["iss"] == .string(LayerID.provider(LayerWorld.providerID)))
            #expect(inspection.profile == .layer)
            #expect(inspection.signatureByteCount == 256)
        }
        // Minted JSON is the canonical form: compact, members sorted, `/` unescaped.
        let minter = try LayerTokenMinter(privateKey: key, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
        let token = try minter.mint(userID: "a/b", nonce: "n", issuedAt: LayerWorld.now, ttl: 60)
        let claims = try #require(foundationBase64URLDecode(JWS.parts(token)[1]))
        #expect(
            String(decoding: claims, as: UTF8.self)
                == #"{"exp":1700000060,"iat":1700000000,"iss":"layer:///providers/\#(LayerWorld.providerID.lowercased)","nce":"n","prn":"a/b"}"#)
    }

    @Test("LayerTokenMinter refuses bad keys, user ids, nonces, TTLs and claims")
    func layerRefuses() throws {
        #expect(throws: MintingError.keyTooSmall(bits: 1024)) {
            try LayerTokenMinter(privateKey: KeyTests.small, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
        }
        #expect(throws: MintingError.keyTooSmall(bits: 1024)) {
            try LayerTokenMinter(privateKeyPEM: KeyTests.small.pemRepresentation, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
        }
        for pem in ["", "garbage", TestKeys.provider.publicKeyPEM] {
            #expect {
                try LayerTokenMinter(privateKeyPEM: pem, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
            } throws: { error in
                if (error as? MintingError)?.kind == .invalidPrivateKey { return true }
                return false
            }
        }
        let minter = try LayerTokenMinter(privateKey: TestKeys.provider.privateKey, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
        for userID in ["", String(repeating: "u", count: 256), "a\nb", "a\u{0}b", "\u{7F}", String(repeating: "é", count: 128)] {
            #expect {
                try minter.mint(userID: userID, nonce: "n")
            } throws: { error in
                if (error as? MintingError)?.kind == .invalidUserID { return true }
                return false
            }
        }
        #expect(throws: Never.self) { try minter.mint(userID: String(repeating: "u", count: 255), nonce: "n") }
        #expect(throws: Never.self) { try minter.mint(userID: "ünïcødé 用户", nonce: "n") }
        #expect(throws: MintingError.invalidNonce) { try minter.mint(userID: "a", nonce: "") }
        #expect(throws: MintingError.invalidNonce) { try minter.mint(userID: "a", nonce: String(repeating: "n", count: 1025)) }
        #expect(throws: MintingError.invalidNonce) { try minter.mint(userID: "a", nonce: "n\r") }
        for ttl: Int64 in [-1, 0, 59, 86_401, .max] {
            #expect(throws: MintingError.invalidTTL(ttl)) { try minter.mint(userID: "a", nonce: "n", ttl: ttl) }
        }
        #expect(throws: Never.self) { try minter.mint(userID: "a", nonce: "n", ttl: 60) }
        #expect(throws: Never.self) { try minter.mint(userID: "a", nonce: "n", ttl: 86_400) }
        #expect(throws: MintingError.invalidClaim("display_name")) {
            try minter.mint(userID: "a", nonce: "n", identity: IdentityClaims(displayName: String(repeating: "d", count: 129)))
        }
        #expect(throws: MintingError.invalidClaim("last_name")) {
            try minter.mint(userID: "a", nonce: "n", identity: IdentityClaims(lastName: "tab\there"))
        }
        #expect(throws: MintingError.invalidClaim("avatar_url")) {
            try minter.mint(userID: "a", nonce: "n", identity: IdentityClaims(avatarURL: String(repeating: "a", count: 1025)))
        }
    }

    @Test("SinchTokenMinter refuses bad application keys, secrets, user ids, nonces and TTLs")
    func sinchRefuses() throws {
        #expect(throws: MintingError.self) { try SinchTokenMinter(applicationKey: "not-a-uuid", applicationSecret: SinchWorld.secretBase64) }
        #expect(throws: MintingError.self) {
            try SinchTokenMinter(applicationKey: "layer:///apps/" + SinchWorld.applicationKey.lowercased, applicationSecret: SinchWorld.secretBase64)
        }
        for secret in ["", "   ", "!!!!", "QUJD", Data(count: 15).base64EncodedString(), "ax8h TTQJ"] {
            #expect(throws: MintingError.invalidApplicationSecret) {
                try SinchTokenMinter(applicationKey: SinchWorld.applicationKey.uuidString, applicationSecret: secret)
            }
        }
        #expect(throws: Never.self) {
            try SinchTokenMinter(applicationKey: SinchWorld.applicationKey.uuidString, applicationSecret: Data(count: 16).base64EncodedString())
        }
        let minter = try SinchTokenMinter(applicationKey: SinchWorld.applicationKey.uuidString, applicationSecret: SinchWorld.secretBase64)
        for userID in ["", "foo bar", "foo/bar", "é", "a.b", "a@b", String(repeating: "u", count: 256)] {
            #expect {
                try minter.mint(userID: userID, issuedAt: SinchWorld.iat)
            } throws: { error in
                if (error as? MintingError)?.kind == .invalidUserID { return true }
                return false
            }
        }
        #expect(throws: Never.self) { try minter.mint(userID: "Az09_=-", issuedAt: SinchWorld.iat) }
        #expect(throws: Never.self) { try minter.mint(userID: String(repeating: "u", count: 255), issuedAt: SinchWorld.iat) }
        #expect(throws: MintingError.invalidNonce) { try minter.mint(userID: "foo", nonce: "", issuedAt: SinchWorld.iat) }
        for ttl: Int64 in [0, 59, 86_401] {
            #expect(throws: MintingError.invalidTTL(ttl)) { try minter.mint(userID: "foo", issuedAt: SinchWorld.iat, ttl: ttl) }
        }
    }

    @Test("a minted Sinch token verifies, with the kid of iat's UTC day")
    func sinchMintVerifies() async throws {
        let minter = try SinchTokenMinter(applicationKey: SinchWorld.applicationKey.uuidString, applicationSecret: SinchWorld.secretBase64)
        let issuedAt: Int64 = 1_709_164_799  // 2024-02-28T23:59:59Z
        let token = try minter.mint(userID: "user_1", nonce: "n-1", issuedAt: issuedAt, ttl: 60, instanceExpiry: issuedAt + 3600)
        let inspection = try TokenInspector.inspect(token)
        #expect(inspection.header["kid"] == "hkdfv1-20240228")
        #expect(inspection.header["typ"] == nil)
        #expect(inspection.claims["sinch:rtc:instance:exp"]?.integerValue == issuedAt + 3600)
        let verified = try await TokenVerifier().verify(token, appID: SinchWorld.appID, facts: SinchWorld.context(), now: issuedAt + 2)
        #expect(verified.userID == "user_1")
        #expect(verified.expiresAt == issuedAt + 60)
        // A second later it is the leap day: still accepted (tomorrow relative to iat's day is yesterday for the server).
        _ = try await TokenVerifier().verify(token, appID: SinchWorld.appID, facts: SinchWorld.context(), now: issuedAt + 30)
    }

    @Test("minters refuse an issuedAt the server would refuse (before 1970 or past 9999)")
    func mintersRefuseOutOfRangeIssuedAt() throws {
        let layer = try LayerTokenMinter(privateKey: TestKeys.provider.privateKey, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
        let sinch = try SinchTokenMinter(applicationKey: SinchWorld.applicationKey.uuidString, applicationSecret: SinchWorld.secretBase64)
        #expect(throws: (any Error).self) { try layer.mint(userID: "a", nonce: "n", issuedAt: -1) }
        #expect(throws: (any Error).self) { try sinch.mint(userID: "a", issuedAt: -1) }
        #expect(throws: (any Error).self) { try layer.mint(userID: "a", nonce: "n", issuedAt: 253_402_300_799) }
        #expect(throws: (any Error).self) { try sinch.mint(userID: "a", issuedAt: 253_402_300_799) }
    }

    @Test("minters do not crash on an extreme issuedAt")
    func mintersExtremeIssuedAt() async {
        await #expect(processExitsWith: .success) {
            let sinch = try SinchTokenMinter(applicationKey: SinchWorld.applicationKey.uuidString, applicationSecret: SinchWorld.secretBase64)
            _ = try? sinch.mint(userID: "a", issuedAt: .max)
            _ = try? sinch.mint(userID: "a", issuedAt: .min)
            let layer = try LayerTokenMinter(privateKey: TestKeys.provider.privateKey, providerID: LayerWorld.providerID, keyID: LayerWorld.keyID)
            _ = try? layer.mint(userID: "a", nonce: "n", issuedAt: .max)
        }
    }

    @Test("TokenInspector throws the structural rejection for what it cannot decode")
    func inspectorRejects() {
        #expect(throws: TokenRejection(.wrongJWSPartCount)) { try TokenInspector.inspect("a.b") }
        #expect(throws: TokenRejection(.malformedBase64URL)) { try TokenInspector.inspect("a=.b.c") }
        #expect(throws: TokenRejection(.tokenTooLarge)) { try TokenInspector.inspect(String(repeating: "a", count: 9000)) }
        #expect { try TokenInspector.inspect("e30.W10.") } throws: { ($0 as? TokenRejection)?.reason == .malformedJSON }
    }
}
