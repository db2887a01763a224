import Crypto
import Foundation
import VouchProtocol
import VouchSupport

/// Signs access tokens: `base64url(header) "." base64url(claims) "." base64url(r || s)`.
public enum AccessTokenMinter {
    /// The compact JWS of `claims` signed with `key`.
    public static func mint(_ claims: AccessTokenClaims, with key: AccessTokenSigningKey) -> String {
        var token = key.encodedHeaderWithDot
        token.reserveCapacity(token.count + 700)
        token += Base64URL.encode(claims.json).utf8
        // The digest of the bytes as they lie: signing `some DataProtocol` walks them generically.
        var hasher = SHA256()
        token.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        let digest = hasher.finalize()
        // ECDSA over P-256 cannot fail for a valid key and a digest.
        let signature = (try? key.privateKey.signature(for: digest).rawRepresentation) ?? Data()
        token.append(UInt8(ascii: "."))
        token += Base64URL.encode(signature).utf8
        return String(decoding: token, as: UTF8.self)
    }

    /// A `jti` of 16 random bytes (22 base64url characters).
    public static func tokenID(random bytes: [UInt8]) -> String { Base64URL.encode(bytes.prefix(16)) }

    /// A `jti` from the standard library's generator (two system calls; the server passes its own
    /// bytes to `tokenID(random:)`).
    public static func tokenID() -> String {
        var generator = SystemRandomNumberGenerator()
        let halves = [generator.next(), generator.next()] as [UInt64]
        return tokenID(random: halves.flatMap { value in (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } })
    }
}

extension AccessTokenClaims {
    /// The claims' JSON, written member by member in `CanonicalJSON`'s spelling and order
    /// (names sorted): the same bytes as `CanonicalJSON.serialize(.object(jsonObject))`, without
    /// building the tree of values first (a test holds the two equal).
    var json: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(400)
        func name(_ text: StaticString) {
            output.append(UInt8(ascii: "\""))
            output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
            output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        }
        func string(_ text: String) { CanonicalJSON.writeString(text, into: &output) }
        func number(_ value: Int64) { output.append(contentsOf: String(value).utf8) }
        func comma() { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "{"))
        name("app")
        string(UUIDText.lowercase(appID))
        comma()
        name("aud")
        string(audience)
        comma()
        name("exp")
        number(expiresAt)
        comma()
        name("gen")
        output.append(UInt8(ascii: "{"))
        name("app")
        number(generations.app)
        comma()
        if let key = generations.key {
            name("key")
            number(key.generation)
            comma()
        }
        if let provider = generations.provider {
            name("provider")
            number(provider.generation)
            comma()
        }
        name("user")
        number(generations.user)
        output.append(UInt8(ascii: "}"))
        comma()
        name("iat")
        number(issuedAt)
        comma()
        name("iss")
        string(issuer)
        comma()
        name("jti")
        string(tokenID)
        comma()
        if let key = generations.key {
            name("key_id")
            string(UUIDText.lowercase(key.id))
            comma()
        }
        if let provider = generations.provider {
            name("provider_id")
            string(UUIDText.lowercase(provider.id))
            comma()
        }
        name("sid")
        string(UUIDText.lowercase(sessionID))
        comma()
        name("sub")
        string(subject)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
