import Crypto
import Foundation

/// Base64url without padding, as JOSE writes it.
func base64URL(_ bytes: some DataProtocol) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

func jsonText(_ object: [String: Any]) -> String {
    String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
}

/// One of Vouch's signing keys, in the tests' hands: it mints tokens and publishes its JWK.
struct TestSigningKey: Sendable {
    let keyID: String
    let privateKey: P256.Signing.PrivateKey

    init(_ keyID: String = UUID().uuidString.lowercased()) {
        self.keyID = keyID
        self.privateKey = P256.Signing.PrivateKey()
    }

    /// The public key as the JWKS lists it.
    var jwk: [String: Any] {
        let raw = privateKey.publicKey.rawRepresentation
        return [
            "kty": "EC", "crv": "P-256", "kid": keyID, "alg": "ES256", "use": "sig",
            "x": base64URL(raw.prefix(32)), "y": base64URL(raw.suffix(32)),
        ]
    }

    /// A compact JWS of `claims` under `header` (ES256 with this key unless `header` says otherwise;
    /// the signature is ES256 whatever it says).
    func sign(claims: [String: Any], header: [String: Any]? = nil) -> String {
        signRaw(claims: jsonText(claims), header: jsonText(header ?? ["alg": "ES256", "kid": keyID, "typ": "at+jwt"]))
    }

    func signRaw(claims: String, header: String) -> String {
        let input = base64URL(Array(header.utf8)) + "." + base64URL(Array(claims.utf8))
        let signature = try! privateKey.signature(for: Array(input.utf8))
        return input + "." + base64URL(signature.rawRepresentation)
    }
}

/// The claims Vouch writes in an access token, with the tests' defaults.
struct TestClaims {
    static let appID = UUID(uuidString: "7c1d0a52-4a0e-4d7e-9a51-0c8d2b6f1e01")!
    static let audience = "chat.example.com"

    var issuer: String
    var audience: String = TestClaims.audience
    var userID = "alice"
    var appID = TestClaims.appID
    var sessionID = UUID()
    var issuedAt: Double
    var lifetime: Double = 300
    var tokenID = base64URL((0..<16).map { _ in UInt8.random(in: 0...255) })
    var generations: [String: Int64] = ["app": 1, "user": 1]
    var providerID: UUID?
    var keyID: UUID?

    init(issuer: String, now: Double) {
        self.issuer = issuer
        self.issuedAt = now.rounded(.down)
    }

    var dictionary: [String: Any] {
        var claims: [String: Any] = [
            "iss": issuer, "aud": audience, "sub": userID, "app": appID.uuidString.lowercased(),
            "sid": sessionID.uuidString.lowercased(), "iat": Int64(issuedAt), "exp": Int64(issuedAt + lifetime), "jti": tokenID,
            "gen": generations,
        ]
        if let providerID { claims["provider_id"] = providerID.uuidString.lowercased() }
        if let keyID { claims["key_id"] = keyID.uuidString.lowercased() }
        return claims
    }
}
