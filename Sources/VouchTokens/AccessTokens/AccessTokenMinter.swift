import Crypto
import Foundation
import VouchProtocol

/// Signs access tokens: `base64url(header) "." base64url(claims) "." base64url(r || s)`.
public enum AccessTokenMinter {
    /// The compact JWS of `claims` signed with `key`.
    public static func mint(_ claims: AccessTokenClaims, with key: AccessTokenSigningKey) -> String {
        var signingInput = key.encodedHeaderWithDot
        signingInput += Array(Base64URL.encode(CanonicalJSON.serialize(.object(claims.jsonObject))).utf8)
        // ECDSA over P-256 with SHA-256 cannot fail for a valid key and a message.
        let signature = (try? key.privateKey.signature(for: signingInput).rawRepresentation) ?? Data()
        var token = String(decoding: signingInput, as: UTF8.self)
        token += "."
        token += Base64URL.encode(signature)
        return token
    }

    /// A `jti`: 16 random bytes as 22 base64url characters.
    public static func tokenID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
