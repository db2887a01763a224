import Crypto
import Foundation
import Testing
import VouchProtocol
import VouchTokens

/// Sinch's published registration-token reference data (vectors/sinch-reference.json).
@Suite("Sinch reference")
struct SinchReferenceTests {
    struct Reference {
        let applicationKey: String
        let applicationSecret: String
        let userID: String
        let nonce: String
        let iat: Int64
        let exp: Int64
        let kid: String
        let signingKeyBase64: String
        let signingKeyHex: String
        let sortedKeysNoTyp: String
        let insertionOrder: String
    }

    static func reference() throws -> Reference {
        let document = try Vectors.json("sinch-reference.json")
        let inputs = try #require(document["inputs"] as? [String: Any])
        let tokens = try #require(document["tokens"] as? [String: Any])
        return Reference(
            applicationKey: try #require(inputs["application_key"] as? String),
            applicationSecret: try #require(inputs["application_secret"] as? String),
            userID: try #require(inputs["user_id"] as? String),
            nonce: try #require(inputs["nonce"] as? String),
            iat: Int64(try #require(inputs["iat"] as? Int)),
            exp: Int64(try #require(inputs["exp"] as? Int)),
            kid: try #require(document["kid"] as? String),
            signingKeyBase64: try #require(document["signing_key_base64"] as? String),
            signingKeyHex: try #require(document["signing_key_hex"] as? String),
            sortedKeysNoTyp: try #require(tokens["sorted_keys_no_typ"] as? String),
            insertionOrder: try #require(tokens["docs_example_insertion_order"] as? String))
    }

    static func context(for reference: Reference, app: UUID) throws -> TestContext {
        var context = TestContext()
        let applicationKey = try #require(UUID(uuidString: reference.applicationKey))
        let secret = try #require(SinchSigningKey.decodeSecret(reference.applicationSecret))
        context.registrationSecrets[applicationKey] = RegistrationSecret(applicationKey: applicationKey, appID: app, secret: secret)
        return context
    }

    @Test("the derived daily key equals signing_key_base64 / signing_key_hex")
    func derivedKey() throws {
        let reference = try Self.reference()
        let secret = try #require(SinchSigningKey.decodeSecret(reference.applicationSecret))
        #expect(secret == Array(Data(base64Encoded: reference.applicationSecret)!))
        #expect(secret.count == 16)
        let date = try #require(SinchSigningKey.date(fromKID: reference.kid))
        #expect(date == CivilDate(year: 2018, month: 1, day: 2))
        #expect(date == CivilDate(unixSeconds: reference.iat))
        #expect(SinchSigningKey.kid(for: date) == reference.kid)
        let key = SinchSigningKey.derive(secret: secret, date: date).bytes
        #expect(key.hex == reference.signingKeyHex)
        #expect(Data(key).base64EncodedString() == reference.signingKeyBase64)
        // Independently: HMAC-SHA256(secret, "20180102").
        let independent = Array(HMAC<SHA256>.authenticationCode(for: Array("20180102".utf8), using: SymmetricKey(data: secret)))
        #expect(independent == key)
    }

    @Test("SinchTokenMinter reproduces sorted_keys_no_typ byte for byte")
    func minterReproducesReference() throws {
        let reference = try Self.reference()
        let minter = try SinchTokenMinter(applicationKey: reference.applicationKey, applicationSecret: reference.applicationSecret)
        let token = try minter.mint(
            userID: reference.userID, nonce: reference.nonce, issuedAt: reference.iat,
            ttl: reference.exp - reference.iat)
        #expect(token == reference.sortedKeysNoTyp)
        // The same minter accepts the secret without padding (as issued, padding optional).
        let unpadded = try SinchTokenMinter(
            applicationKey: reference.applicationKey.uppercased(),
            applicationSecret: String(reference.applicationSecret.prefix { $0 != "=" }))
        #expect(
            try unpadded.mint(userID: reference.userID, nonce: reference.nonce, issuedAt: reference.iat, ttl: 600)
                == reference.sortedKeysNoTyp)
    }

    @Test(
        "both reference tokens verify at iat+10 for the app that holds the secret",
        arguments: ["sorted_keys_no_typ", "docs_example_insertion_order"])
    func referenceTokensVerify(which: String) async throws {
        let reference = try Self.reference()
        let token = which == "sorted_keys_no_typ" ? reference.sortedKeysNoTyp : reference.insertionOrder
        let app = SinchWorld.appID
        let context = try Self.context(for: reference, app: app)
        let verified = try await TokenVerifier().verify(token, appID: app, facts: context, now: reference.iat + 10)
        #expect(verified.profile == .sinch)
        #expect(verified.userID == reference.userID)
        #expect(verified.nonce == reference.nonce)
        #expect(verified.issuedAt == reference.iat)
        #expect(verified.expiresAt == reference.exp)
        #expect(verified.applicationKey == UUID(uuidString: reference.applicationKey))
        #expect(verified.providerID == nil)
        #expect(verified.keyID == nil)

        // The same token is refused for another app, and once expired.
        let other = await rejection(of: token, appID: SinchWorld.otherAppID, context: context, now: reference.iat + 10)
        #expect(other?.reason == .providerNotBoundToApp)
        let late = await rejection(of: token, appID: app, context: context, now: reference.exp + 60)
        #expect(late?.reason == .expired)
        // And with a secret that is not the app's, the signature fails.
        var wrongSecret = context
        let applicationKey = try #require(UUID(uuidString: reference.applicationKey))
        wrongSecret.registrationSecrets[applicationKey]?.secret = Array(repeating: 7, count: 16)
        let forged = await rejection(of: token, appID: app, context: wrongSecret, now: reference.iat + 10)
        #expect(forged?.reason == .signatureVerificationFailed)
    }

    @Test("TokenInspector reads the reference token as the Sinch profile")
    func inspectReference() throws {
        let reference = try Self.reference()
        let inspection = try TokenInspector.inspect(reference.sortedKeysNoTyp)
        #expect(inspection.profile == .sinch)
        #expect(inspection.header == ["alg": "HS256", "kid": .string(reference.kid)])
        #expect(inspection.claims["sub"] == .string("//rtc.sinch.com/applications/\(reference.applicationKey)/users/foo"))
        #expect(inspection.claims["iat"]?.integerValue == reference.iat)
        #expect(inspection.signatureByteCount == 32)
    }
}
