import Crypto
import Foundation
import Synchronization
import Testing
import VouchProtocol
import VouchTokens
import _CryptoExtras

// MARK: - Vendored vectors

/// The public test vectors the tests need, vendored as resources of this target (see
/// Vectors/README.md), so that a fresh clone needs nothing beside it and no test skips.
enum Vectors {
    static let directory: URL = Bundle.module.resourceURL!.appendingPathComponent("Vectors")

    static func url(_ relative: String) -> URL { directory.appendingPathComponent(relative) }

    /// A vector file parsed with Foundation (an implementation independent of the code under test).
    static func json(_ relative: String) throws -> [String: Any] {
        let data = try Data(contentsOf: url(relative))
        let object = try JSONSerialization.jsonObject(with: data)
        return try #require(object as? [String: Any], "\(relative) is not a JSON object")
    }
}

// MARK: - Byte helpers (independent of the code under test)

extension Array where Element == UInt8 {
    /// Lower- or upper-case hex; `nil` for anything else.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

/// Base64url decoding through Foundation (lenient, but an independent oracle for vectors).
func foundationBase64URLDecode(_ text: String) -> [UInt8]? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64).map(Array.init)
}

/// Base64url encoding through Foundation, padding stripped.
func foundationBase64URLEncode(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

extension SymmetricKey {
    var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

// MARK: - JSON written member by member

/// A JSON string literal for `text` (escapes `"`, `\` and control characters).
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A JSON object whose members the test writes itself, value by value as raw JSON text, so that it
/// chooses the exact bytes: member order, duplicates, `1.7e9` versus `1700000000`, broken values.
struct JSONText {
    var members: [(name: String, raw: String)]

    init(_ members: [(String, String)]) { self.members = members.map { (name: $0.0, raw: $0.1) } }

    /// Raw JSON text of the first member named `name`; setting `nil` removes every such member,
    /// setting a value replaces the first (or appends).
    subscript(name: String) -> String? {
        get { members.first { $0.name == name }?.raw }
        set {
            guard let newValue else {
                members.removeAll { $0.name == name }
                return
            }
            if let index = members.firstIndex(where: { $0.name == name }) {
                members[index].raw = newValue
            } else {
                members.append((name: name, raw: newValue))
            }
        }
    }

    /// Appends a member even when the name is already there (a duplicate).
    mutating func append(_ name: String, _ raw: String) { members.append((name: name, raw: raw)) }

    var text: String { "{" + members.map { jsonString($0.name) + ":" + $0.raw }.joined(separator: ",") + "}" }
    var bytes: [UInt8] { Array(text.utf8) }
}

// MARK: - Signing arbitrary bytes

enum JWS {
    static func signingInput(header: [UInt8], claims: [UInt8]) -> String {
        Base64URL.encode(header) + "." + Base64URL.encode(claims)
    }

    /// An RS256 token over exactly these header and claims bytes.
    static func rs256(header: [UInt8], claims: [UInt8], key: _RSA.Signing.PrivateKey) throws -> String {
        let input = signingInput(header: header, claims: claims)
        let signature = try RS256.sign(Array(input.utf8), privateKey: key)
        return input + "." + Base64URL.encode(signature)
    }

    /// An HS256 token over exactly these header and claims bytes.
    static func hs256(header: [UInt8], claims: [UInt8], key: SymmetricKey) -> String {
        let input = signingInput(header: header, claims: claims)
        return input + "." + Base64URL.encode(HS256.sign(Array(input.utf8), key: key))
    }

    /// The three parts of a compact token as text.
    static func parts(_ token: String) -> [String] { token.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
}

// MARK: - Keys (generated once per test process)

enum TestKeys {
    /// The provider's registered key.
    static let provider: RSAKeyPair = try! RSAKeyPair.generate()
    /// A key nobody registered: an attacker's.
    static let attacker: RSAKeyPair = try! RSAKeyPair.generate()
}

// MARK: - The injected world

/// Records which lookups the verifier made.
final class CallLog: Sendable {
    private let calls = Mutex<[String]>([])

    func record(_ call: String) { calls.withLock { $0.append(call) } }

    var all: [String] { calls.withLock { $0 } }
}

/// A plain in-memory world the verifier is shown, as a `VerificationFactsProvider`.
struct TestContext: VerificationFactsProvider {
    var layerKeys: [UUID: LayerVerificationKey] = [:]
    /// Known providers and the apps each is bound to.
    var providers: [UUID: Set<UUID>] = [:]
    var usableNonces: Set<String> = []
    var registrationSecrets: [UUID: RegistrationSecret] = [:]
    var seenRegistrationNonces: Set<String> = []
    var suspendedUsers: Set<String> = []
    /// Providers with a key source, by issuer, and their fetched keys by `kid`.
    var sourceProviders: [String: KeySourceProvider] = [:]
    var sourceKeys: [String: SourceKey] = [:]
    /// ID tokens that already signed in, by `TokenPlan.replayDigest`.
    var usedIDTokens: Set<[UInt8]> = []
    /// One line per plan the verifier asked about.
    let log = CallLog()

    func facts(for plan: TokenPlan, now: Int64) async throws -> VerificationFacts {
        log.record("facts")
        var facts = VerificationFacts()
        facts.layerKey = plan.keyID.flatMap { layerKeys[$0] }
        if let providerID = plan.providerID {
            facts.providerBinding = providers[providerID].map { $0.contains(plan.appID) ? .bound : .notBound } ?? .unknownProvider
        }
        facts.serverNonce = plan.serverNonce.map { usableNonces.contains($0) ? .usable : .unknown }
        facts.registrationSecret = plan.applicationKey.flatMap { registrationSecrets[$0] }
        facts.registrationNonceSeen = plan.registrationNonce.map { seenRegistrationNonces.contains($0) }
        facts.userSuspended = plan.userID.map { suspendedUsers.contains($0) }
        if case .issuer(let issuer) = plan.sourceProvider, let provider = sourceProviders[issuer] {
            var provider = provider
            provider.boundToApp = provider.boundToApp && plan.appID == IDTokenWorld.appID
            facts.sourceProvider = provider
            facts.sourceKey = plan.sourceKeyID.map { sourceKeys[$0].map(SourceKeyLookup.found) ?? .notFound }
        }
        facts.idTokenUsed = plan.replayDigest.map(usedIDTokens.contains)
        return facts
    }
}

// MARK: - Layer profile world

enum LayerWorld {
    static let appID = UUID(uuidString: "0b6b0c3e-4f0a-4e53-9a53-1d2f1c8f0a01")!
    static let otherAppID = UUID(uuidString: "0b6b0c3e-4f0a-4e53-9a53-1d2f1c8f0a02")!
    static let providerID = UUID(uuidString: "7d3f5a10-9c2b-4c1e-8f7a-2b9e4d6c8a11")!
    static let otherProviderID = UUID(uuidString: "7d3f5a10-9c2b-4c1e-8f7a-2b9e4d6c8a12")!
    static let keyID = UUID(uuidString: "c1a2b3d4-e5f6-4711-8899-aabbccddeeff")!
    static let unknownKeyID = UUID(uuidString: "c1a2b3d4-e5f6-4711-8899-aabbccddee00")!
    static let now: Int64 = 1_700_000_000
    static let nonce = "bm9uY2UtZnJvbS1QT1NULW5vbmNlcy0zMi1ieXRlcy1sb25n"
    static let userID = "alice@example.com"

    static func header(kid: String = LayerID.key(keyID)) -> JSONText {
        JSONText([("typ", jsonString("JWT")), ("alg", jsonString("RS256")), ("cty", jsonString("layer-eit;v=1")), ("kid", jsonString(kid))])
    }

    static func claims(iat: Int64 = now - 10, exp: Int64 = now + 110, prn: String = userID, nonce: String = nonce) -> JSONText {
        JSONText([
            ("iss", jsonString(LayerID.provider(providerID))), ("prn", jsonString(prn)),
            ("iat", String(iat)), ("exp", String(exp)), ("nce", jsonString(nonce)),
        ])
    }

    static func token(
        header: JSONText = header(), claims: JSONText = claims(),
        key: _RSA.Signing.PrivateKey = TestKeys.provider.privateKey
    ) throws -> String {
        try JWS.rs256(header: header.bytes, claims: claims.bytes, key: key)
    }

    static func token(
        headerBytes: [UInt8], claimsBytes: [UInt8],
        key: _RSA.Signing.PrivateKey = TestKeys.provider.privateKey
    ) throws -> String {
        try JWS.rs256(header: headerBytes, claims: claimsBytes, key: key)
    }

    /// A world in which `token()` verifies: the key is active, the provider bound to the app, the
    /// nonce usable, nobody suspended.
    static func context(keyStatus: KeyStatus = .active) -> TestContext {
        var context = TestContext()
        context.layerKeys[keyID] = LayerVerificationKey(
            id: keyID, providerID: providerID, status: keyStatus,
            publicKey: TestKeys.provider.privateKey.publicKey)
        context.providers[providerID] = [appID]
        context.providers[otherProviderID] = [appID]
        context.usableNonces = [nonce]
        return context
    }
}

// MARK: - Federated ID token world (PROTOCOL §8.18)

enum IDTokenWorld {
    static let appID = LayerWorld.appID
    static let providerID = UUID(uuidString: "7d3f5a10-9c2b-4c1e-8f7a-2b9e4d6c8a13")!
    static let issuer = "https://login.example.com/tenant"
    static let clientID = "client-1"
    static let kid = "idp-key-1"
    static let now = LayerWorld.now

    static func header(alg: String = "RS256", kid: String = kid) -> JSONText {
        JSONText([("alg", jsonString(alg)), ("kid", jsonString(kid)), ("typ", jsonString("JWT"))])
    }

    static func claims(iat: Int64 = now - 10, exp: Int64 = now + 600, sub: String = LayerWorld.userID) -> JSONText {
        JSONText([
            ("iss", jsonString(issuer)), ("sub", jsonString(sub)), ("aud", jsonString(clientID)),
            ("iat", String(iat)), ("exp", String(exp)),
        ])
    }

    static func token(header: JSONText = header(), claims: JSONText = claims(), key: _RSA.Signing.PrivateKey = TestKeys.provider.privateKey) throws -> String {
        try JWS.rs256(header: header.bytes, claims: claims.bytes, key: key)
    }

    /// A world in which `token()` verifies: a federated provider of `issuer`, bound to the app,
    /// whose key source publishes the provider's key as `kid`.
    static func context() -> TestContext {
        var context = TestContext()
        context.sourceProviders[issuer] = KeySourceProvider(
            providerID: providerID, hasKeySource: true, issuer: issuer, clientID: clientID, federated: true, algorithm: .rs256,
            boundToApp: true)
        context.sourceKeys[kid] = SourceKey(
            keyID: kid, key: .rsa(TestKeys.provider.privateKey.publicKey), keyType: "RSA",
            fingerprint: PublicKeyInfo.fingerprint(of: TestKeys.provider.privateKey.publicKey))
        return context
    }
}

// MARK: - Sinch profile world (Sinch's published reference inputs)

enum SinchWorld {
    static let appID = UUID(uuidString: "5e8f2a7c-1b3d-4e6f-a0b1-c2d3e4f50617")!
    static let otherAppID = UUID(uuidString: "5e8f2a7c-1b3d-4e6f-a0b1-c2d3e4f50618")!
    static let applicationKey = UUID(uuidString: "a32e5a8d-f7d8-411c-9645-9038e8dd051d")!
    static let secretBase64 = "ax8hTTQJF0OPXL32r1LHMA=="
    static let secret: [UInt8] = Array(Data(base64Encoded: secretBase64)!)
    static let iat: Int64 = 1_514_862_245  // 2018-01-02T03:04:05Z
    static let now: Int64 = iat + 10
    static let nonce = "6b438bda-2d5c-4e8c-92b0-39f20a94b34e"
    static let issuer = "//rtc.sinch.com/applications/a32e5a8d-f7d8-411c-9645-9038e8dd051d"

    static func header(kid: String = "hkdfv1-20180102") -> JSONText {
        JSONText([("alg", jsonString("HS256")), ("kid", jsonString(kid))])
    }

    static func claims(iat: Int64 = iat, exp: Int64? = nil, user: String = "foo", nonce: String = nonce) -> JSONText {
        JSONText([
            ("iss", jsonString(issuer)), ("sub", jsonString(issuer + "/users/" + user)),
            ("iat", String(iat)), ("exp", String(exp ?? iat + 600)), ("nonce", jsonString(nonce)),
        ])
    }

    /// Signs with the key derived for `keyDate` (by default the date the header's `kid` names).
    static func token(
        header: JSONText = header(), claims: JSONText = claims(), keyDate: String? = nil,
        secret: [UInt8] = secret
    ) throws -> String {
        let kidText = header["kid"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed) as? String }
        let dateText = try #require(keyDate ?? kidText?.replacingOccurrences(of: "hkdfv1-", with: ""))
        let date = try #require(CivilDate(compact: dateText))
        return JWS.hs256(header: header.bytes, claims: claims.bytes, key: SinchSigningKey.derive(secret: secret, date: date))
    }

    static func context(secretApp: UUID = appID) -> TestContext {
        var context = TestContext()
        context.registrationSecrets[applicationKey] = RegistrationSecret(applicationKey: applicationKey, appID: secretApp, secret: secret)
        return context
    }
}

// MARK: - Running the verifier

/// Runs `verify` and returns the rejection it throws (recording an issue if it accepts the token or
/// throws anything else).
func rejection(
    of token: String, appID: UUID, context: TestContext, now: Int64,
    verifier: TokenVerifier = TokenVerifier(),
    sourceLocation: SourceLocation = #_sourceLocation
) async -> TokenRejection? {
    do {
        let verified = try await verifier.verify(token, appID: appID, facts: context, now: now)
        Issue.record("token was accepted (user \(verified.userID)), expected a rejection", sourceLocation: sourceLocation)
        return nil
    } catch let rejection as TokenRejection {
        return rejection
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

// MARK: - Keys made by hand

/// SubjectPublicKeyInfo PEM written byte by byte, for keys no library will construct (an 8200-bit
/// modulus, e = 3): the upload rules are about n and e, not about primes.
enum HandMadeRSA {
    /// `bits` is a multiple of 8.
    static func publicKeyPEM(bits: Int, exponent: [UInt8] = [0x01, 0x00, 0x01]) -> String {
        var modulus = (0..<bits / 8).map { _ in UInt8.random(in: 0...255) }
        modulus[0] |= 0x80
        modulus[modulus.count - 1] |= 1
        let rsaKey = der(0x30, integer(modulus) + integer(exponent))
        let algorithm = der(0x30, der(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]) + [0x05, 0x00])
        let spki = der(0x30, algorithm + der(0x03, [0x00] + rsaKey))
        let body = Data(spki).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----\n"
    }

    private static func integer(_ bytes: [UInt8]) -> [UInt8] {
        der(0x02, (bytes.first ?? 0) & 0x80 != 0 ? [0x00] + bytes : bytes)
    }

    private static func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        if count < 0x80 { return [tag, UInt8(count)] + content }
        let lengthBytes = withUnsafeBytes(of: UInt32(count).bigEndian) { Array($0) }.drop { $0 == 0 }
        return [tag, 0x80 | UInt8(lengthBytes.count)] + lengthBytes + content
    }
}
