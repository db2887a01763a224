import VouchProtocol

/// `base64url(header) "." base64url(claims)` in the canonical JSON spelling.
enum JWSSigningInput {
    static func make(header: [String: JSONValue], claims: [String: JSONValue]) -> [UInt8] {
        let text =
            Base64URL.encode(CanonicalJSON.serialize(.object(header))) + "."
            + Base64URL.encode(CanonicalJSON.serialize(.object(claims)))
        return Array(text.utf8)
    }
}
