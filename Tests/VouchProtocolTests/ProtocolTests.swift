import Foundation
import Testing
import VouchProtocol
import VouchTestSupport

/// PROTOCOL §5.4, copied from the contract: number, reason, description.
let contractReasonTable: [(Int, String, String)] = [
    (1, "eit_token_too_large", "Identity token is larger than 8 KiB."),
    (2, "eit_wrong_jws_part_count", "Invalid identity token structure: a JWS compact token has exactly three dot-separated parts."),
    (
        3, "eit_malformed_base64url",
        "Invalid identity token structure. Should be Base64 URL encoded: canonical, with no padding, no `+` `/`, no white space, and zero unused trailing bits (so one token has exactly one spelling)."
    ),
    (4, "eit_malformed_json", "Invalid identity token structure: header and claims must each be one JSON object, with no duplicate names."),
    (5, "eit_header_param_not_found", "Invalid header. Missing parameter (`data.param`)."),
    (6, "eit_header_param_wrong_type", "Invalid header. Wrong type (`data.param`)."),
    (7, "eit_header_param_wrong_value", "Invalid header. `typ` should be `JWT` (or `JWS`), `alg` `RS256`, `cty` `layer-eit;v=1`; any `crit` is refused."),
    (8, "eit_key_malformed", "The Key ID you specified is malformed (`layer:///keys/` followed by something that is not a UUID)."),
    (
        9, "eit_key_not_found",
        "Authentication Key in the `kid` field is invalid. Make sure you provide a valid Authentication Key (Should start with layer:///keys/...)."
    ),
    (10, "eit_key_deleted", "The Key ID you specified has been deleted. Please use a different key or create a new one."),
    (11, "eit_key_disabled", "The Key ID you specified has been disabled. Please use a different key or create a new one."),
    (12, "eit_signature_verification_failed", "Signature verification failed: the token was signed by a different private key than the one named in `kid`."),
    (13, "eit_claim_not_found", "Invalid claim. Missing value (`data.claim`)."),
    (14, "eit_claim_wrong_type", "Invalid claim. Wrong value type (`data.claim`): `iat`/`exp` are integers, the rest strings."),
    (
        15, "eit_claim_wrong_value",
        "Invalid claim value (`data.claim`): empty or over-long user id, control characters, fields over their limits (names 128 bytes, avatar_url 1024)."
    ),
    (16, "eit_provider_not_found", "A valid Provider ID should be set in the `iss` field (it must be the provider that owns the key)."),
    (17, "eit_provider_not_bound_to_app", "This Provider ID found in the `iss` field is not bound to a valid Application."),
    (18, "eit_expired", "Token expired. Check your expiration timestamp found in the `exp` field."),
    (19, "eit_not_before", "This identity token can not be used before the `iat` timestamp (mention milliseconds when `iat` looks like it is in ms)."),
    (20, "eit_ttl_too_short", "(Sinch profile) `exp − iat` is under 60 seconds."),
    (21, "eit_nonce_not_found", "Nonce not found or has expired (also: already used)."),
    (22, "eit_nonce_replayed", "(Sinch profile) This nonce was already used."),
    (23, "eit_user_suspended", "Provided User ID found in the `prn` field has been blacklisted."),
]

/// PROTOCOL §2 (and §3 for `service_unavailable`, code 1): code, id, HTTP status.
let contractErrorTable: [(Int, String, Int)] = [
    (1, "service_unavailable", 503),
    (2, "invalid_app_id", 403),
    (4, "authentication_required", 401),
    (7, "rate_limit_exceeded", 429),
    (10, "invalid_request", 400),
    (100, "internal_server_error", 500),
    (101, "access_denied", 403),
    (102, "not_found", 404),
    (104, "missing_property", 422),
    (105, "invalid_property", 422),
    (108, "conflict", 409),
    (109, "method_not_allowed", 405),
    (111, "too_large", 413),
    // Vouch's additions (docs/PROTOCOL.md §8.1): over-long request heads.
    (112, "uri_too_long", 414),
    (113, "headers_too_large", 431),
    // docs/PROTOCOL.md §8.15: a plain GET of the live channel's WebSocket.
    (114, "upgrade_required", 426),
    (115, "service_credential_required", 401),
]

/// docs/PROTOCOL.md §8.18: reasons added at the table's end for federated ID tokens.
let extendedReasonTable: [(Int, String, String)] = [
    (24, "eit_ttl_too_long", "(ID token) `exp − iat` is over an hour: a federated provider's ID token must be short-lived."),
    (25, "eit_token_replayed", "(ID token) This ID token already signed a user in: get a fresh one from the provider."),
]

/// Encodes as the server does on the wire, with sorted keys so the bytes can be compared.
func wireJSON(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

@Suite("Reason table")
struct RejectionReasonTests {
    @Test("the contract's 23 reasons in exactly the order of §5.4, then the two ID-token reasons of §8.18 at its end")
    func order() {
        #expect(RejectionReason.allCases.count == 25)
        #expect(RejectionReason.allCases.map(\.rawValue) == (contractReasonTable + extendedReasonTable).map(\.1))
        for (number, raw, _) in contractReasonTable + extendedReasonTable {
            #expect(RejectionReason(rawValue: raw)?.rank == number, "\(raw)")
        }
    }

    @Test("messages are the descriptions of §5.4 (and docs/PROTOCOL.md §8.18's additions), verbatim")
    func messages() throws {
        for (number, raw, description) in contractReasonTable + extendedReasonTable {
            let reason = try #require(RejectionReason(rawValue: raw))
            #expect(reason.message == description, "#\(number) \(raw)")
            #expect(TokenRejection(reason).message == description)
        }
    }

    @Test("ordering follows rank")
    func comparable() {
        let all = RejectionReason.allCases
        #expect(all.sorted() == all)
        #expect(all.shuffled().sorted() == all)
        #expect(RejectionReason.tokenTooLarge < .userSuspended)
        #expect(RejectionReason.signatureVerificationFailed < .claimNotFound)
        #expect(!(RejectionReason.expired < .expired))
        #expect(RejectionReason.expired.rank == 18)
    }

    @Test("reasons and rejections encode as their raw values")
    func coding() throws {
        #expect(try wireJSON([RejectionReason.expired]) == #"["eit_expired"]"#)
        let rejection = TokenRejection(.claimWrongType, claim: "iat", hint: "h")
        #expect(try wireJSON(rejection) == #"{"claim":"iat","hint":"h","reason":"eit_claim_wrong_type"}"#)
        let decoded = try JSONDecoder().decode(TokenRejection.self, from: Data(try wireJSON(rejection).utf8))
        #expect(decoded == rejection)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(RejectionReason.self, from: Data(#""eit_unknown""#.utf8)) }
    }
}

@Suite("Error body (§2)")
struct ErrorBodyTests {
    @Test("ErrorKind code / id / HTTP status table matches §2 exactly")
    func table() throws {
        #expect(ErrorKind.allCases.count == contractErrorTable.count)
        for (code, id, status) in contractErrorTable {
            let kind = try #require(ErrorKind(rawValue: id), "\(id) missing")
            #expect(kind.code == code, "\(id)")
            #expect(kind.httpStatus == status, "\(id)")
        }
        #expect(Set(ErrorKind.allCases.map(\.code)).count == ErrorKind.allCases.count, "codes are unique")
    }

    @Test("ErrorBody encodes to Layer's shape")
    func shape() throws {
        let body = ErrorBody(
            .invalidProperty, message: RejectionReason.expired.message,
            data: [
                "property": "identity_token", "reason": "eit_expired", "server_time": 1_700_000_000,
            ])
        #expect(body.id == "invalid_property")
        #expect(body.code == 105)
        #expect(body.kind == .invalidProperty)
        #expect(
            try wireJSON(body) == """
                {"code":105,"data":{"property":"identity_token","reason":"eit_expired","server_time":1700000000},\
                "id":"invalid_property","message":"Token expired. Check your expiration timestamp found in the `exp` field.",\
                "url":"https://vouch.dev/docs/errors#invalid_property"}
                """)
        let decoded = try JSONDecoder().decode(ErrorBody.self, from: Data(try wireJSON(body).utf8))
        #expect(decoded == body)

        let challenge = ErrorBody(.authenticationRequired, message: "m", data: ["nonce": "abc", "reason": "session_expired"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try wireJSON(challenge).utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["id", "code", "message", "url", "data"])
        #expect(object["code"] as? Int == 4)
        #expect((object["data"] as? [String: Any])?["nonce"] as? String == "abc")

        let unknown = try JSONDecoder().decode(ErrorBody.self, from: Data(#"{"id":"brand_new","code":999,"message":"m","url":"u"}"#.utf8))
        #expect(unknown.kind == nil)
        #expect(unknown.data == nil)
    }
}

@Suite("Identity and messages")
struct MessageShapeTests {
    @Test("Identity encodes absent fields as null")
    func identityNulls() throws {
        #expect(
            try wireJSON(Identity(userID: "alice")) == """
                {"avatar_url":null,"display_name":null,"first_name":null,"id":"layer:///identities/alice","last_name":null,"user_id":"alice"}
                """)
        let full = Identity(userID: "a b/c", displayName: "D", firstName: "F", lastName: "L", avatarURL: "https://x/y")
        #expect(
            try wireJSON(full) == """
                {"avatar_url":"https://x/y","display_name":"D","first_name":"F","id":"layer:///identities/a%20b%2Fc","last_name":"L","user_id":"a b/c"}
                """)
        #expect(try JSONDecoder().decode(Identity.self, from: Data(try wireJSON(full).utf8)) == full)
        let decoded = try JSONDecoder().decode(Identity.self, from: Data(#"{"id":"layer:///identities/x","user_id":"x"}"#.utf8))
        #expect(decoded == Identity(userID: "x"))
    }

    @Test("identity URIs escape by bytes exactly as Foundation's addingPercentEncoding does")
    func identityEscapingAgreesWithFoundation() {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var samples = (0..<0x80).compactMap(Unicode.Scalar.init).map { "x\(Character($0))y" }
        samples += ["", "é", "中文", "👩‍💻", "a b/c?d#e%f", "\u{FEFF}\u{2028}", "Ω≈ç√∫"]
        for sample in samples {
            let foundation = sample.addingPercentEncoding(withAllowedCharacters: unreserved)
            #expect(LayerID.identity(sample) == "layer:///identities/" + (foundation ?? "?"), "\(sample.debugDescription)")
        }
    }

    @Test("identity URIs percent-escape everything but RFC 3986 unreserved characters")
    func identityEscaping() {
        #expect(LayerID.identity("Az09-._~") == "layer:///identities/Az09-._~")
        #expect(LayerID.identity("ü") == "layer:///identities/%C3%BC")
        #expect(LayerID.identity("a@b.c") == "layer:///identities/a%40b.c")
        #expect(LayerID.identity("100%") == "layer:///identities/100%25")
        #expect(LayerID.identity("?#/") == "layer:///identities/%3F%23%2F")
    }

    @Test("session and nonce responses use snake_case names")
    func otherShapes() throws {
        #expect(
            try wireJSON(NonceResponse(nonce: "n", expiresAt: "2023-11-14T22:13:20Z"))
                == #"{"expires_at":"2023-11-14T22:13:20Z","nonce":"n"}"#)
        #expect(try wireJSON(CreateSessionRequest(identityToken: "t", appID: "a")) == #"{"app_id":"a","identity_token":"t"}"#)
        let missing = try JSONDecoder().decode(CreateSessionRequest.self, from: Data("{}".utf8))
        #expect(missing.identityToken == nil && missing.appID == nil)
        #expect(Timestamp.rfc3339(0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.rfc3339(1_700_000_000) == "2023-11-14T22:13:20Z")
        #expect(Timestamp.parse("2023-11-14T22:13:20Z") == 1_700_000_000)
    }

    @Test("JSONValue keeps number literals")
    func jsonValueNumbers() throws {
        #expect(JSONValue.number(JSONNumber(literal: "1.7e9")).integerValue == nil)
        #expect(JSONValue.number(JSONNumber(literal: "1700000000")).integerValue == 1_700_000_000)
        #expect(JSONValue.number(JSONNumber(literal: "99999999999999999999")).integerValue == nil)
        #expect(try wireJSON(["a": JSONValue.number(JSONNumber(literal: "12"))]) == #"{"a":12}"#)
    }
}

@Suite("LayerID (§1)")
struct LayerIDTests {
    static let uuid = UUID(uuidString: "0B6B0C3E-4F0A-4E53-9A53-1D2F1C8F0A01")!
    static let lower = "0b6b0c3e-4f0a-4e53-9a53-1d2f1c8f0a01"

    @Test("output is the canonical lower-case URI")
    func output() {
        #expect(LayerID.app(Self.uuid) == "layer:///apps/" + Self.lower)
        #expect(LayerID.provider(Self.uuid) == "layer:///providers/" + Self.lower)
        #expect(LayerID.key(Self.uuid) == "layer:///keys/" + Self.lower)
        #expect(Self.uuid.lowercased == Self.lower)
    }

    @Test("canonical, bare and upper-case input parse")
    func accepted() {
        let upper = Self.lower.uppercased()
        for text in ["layer:///apps/" + Self.lower, Self.lower, upper, "layer:///apps/" + upper, "layer:///apps/0b6b0c3e-4F0A-4e53-9A53-1d2f1c8f0a01"] {
            #expect(LayerID.parseApp(text) == Self.uuid, "\(text)")
        }
        #expect(LayerID.parseProvider("layer:///providers/" + Self.lower) == Self.uuid)
        #expect(LayerID.parseKey("layer:///keys/" + upper) == Self.uuid)
        #expect(LayerID.parseKey(Self.lower) == Self.uuid)
        #expect(LayerID.parseUUID(Self.lower[...]) == Self.uuid)
    }

    @Test(
        "garbage and ids of another kind do not parse",
        arguments: [
            "", "layer:///apps/", "layer:///apps/xyz", "layer:///apps/" + LayerIDTests.lower + "x", "layer:///apps//" + LayerIDTests.lower,
            "layer:///providers/" + LayerIDTests.lower, "layer:///keys/" + LayerIDTests.lower, "LAYER:///APPS/" + LayerIDTests.lower,
            "layer://apps/" + LayerIDTests.lower,
            "{" + LayerIDTests.lower + "}", LayerIDTests.lower.replacingOccurrences(of: "-", with: ""), " " + LayerIDTests.lower, LayerIDTests.lower + " ",
            LayerIDTests.lower + "\n",
            "0b6b0c3e-4f0a-4e53-9a53-1d2f1c8f0a0g", "0b6b0c3e_4f0a_4e53_9a53_1d2f1c8f0a01", "0b6b0c3e-4f0a-4e53-9a531d2f1c8f0a01-",
            "../../etc/passwd", "' OR 1=1 --",
            // Shapes Foundation's lenient scanner would take for a UUID.
            "7e05c1f4-eb61-4811-9158-46445a-9bec6", "80b71290-fd89-499c-bf85-6ef09a56c 7b", "08a45f40-02c1-4a2b-a98f-0xb291c7a35a",
        ])
    func refused(text: String) {
        #expect(LayerID.parseApp(text) == nil)
    }

    /// Foundation's `UUID(uuidString:)` scans leniently: it accepts `…-46445a-9bec6` (a dash out
    /// of place), `…56c 7b` (a space) and `0x` inside. Ids are exactly 8-4-4-4-12 hex digits here;
    /// within that shape both parsers must agree.
    @Test("parsing and printing agree with Foundation on the canonical shape, and nothing else parses")
    func agreesWithFoundation() {
        let alphabet = Array("0123456789abcdefABCDEFgG-x \u{0}é".unicodeScalars)
        for _ in 0..<200 {
            let id = UUID()
            #expect(id.lowercased == id.uuidString.lowercased())
            #expect(LayerID.parseUUID(id.uuidString) == id)
            var text = Array(id.lowercased.unicodeScalars)
            let position = Int.random(in: 0..<text.count)
            text[position] = alphabet.randomElement()!
            let changed = String(String.UnicodeScalarView(text))
            let canonicalShape = changed.wholeMatch(of: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/) != nil
            #expect(LayerID.parseUUID(changed) == (canonicalShape ? UUID(uuidString: changed) : nil), "\(changed)")
        }
    }
}

@Suite("JSON numbers")
struct JSONNumberTests {
    /// The definition the one-pass reader replaced: an integer literal that `Int64` can read.
    static func reference(_ literal: String) -> Int64? {
        JSONNumber(literal: literal).isIntegerLiteral ? Int64(literal) : nil
    }

    @Test("integerValue agrees with Int64(literal) at the edges")
    func edges() {
        let literals = [
            "0", "-0", "+0", "7", "-7", "+7", "1700000000", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "99999999999999999999", "", "-", "+", "--1",
            "+-1", "1-", "1.0", "1e9", "1E9", "12a", " 1", "1 ", "0x10", "٣", "00012", "-00",
        ]
        for literal in literals {
            #expect(JSONNumber(literal: literal).integerValue == Self.reference(literal), "\(literal)")
        }
        #expect(JSONNumber(Int64.min).integerValue == .min && JSONNumber(Int64.max).integerValue == .max)
    }

    @Test("integerValue agrees with Int64(literal) on random text", arguments: 0..<20)
    func randomText(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let alphabet = Array("0123456789-+.eE a")
        for _ in 0..<500 {
            let length = Int.random(in: 0...21, using: &generator)
            let literal = String(
                (0..<length).map { _ in
                    Int.random(in: 0..<4, using: &generator) == 0
                        ? alphabet.randomElement(using: &generator)!
                        : Character(String(Int.random(in: 0...9, using: &generator)))
                })
            #expect(JSONNumber(literal: literal).integerValue == Self.reference(literal), "\(literal)")
        }
    }
}
