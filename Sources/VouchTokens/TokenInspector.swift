import VouchProtocol

/// Decodes a token's header and claims without trusting or verifying anything: for
/// `vouch token inspect`, and for people reading a token they were handed.
public enum TokenInspector {
    public struct Inspection: Sendable, Equatable {
        public var header: [String: JSONValue]
        public var claims: [String: JSONValue]
        public var profile: TokenProfile
        public var signatureByteCount: Int
    }

    /// Throws the structural rejection (#1–#4) when the token cannot be decoded.
    public static func inspect(_ token: String) throws(TokenRejection) -> Inspection {
        let jws = try CompactJWS(parsing: token)
        return Inspection(
            header: jws.header.dictionary, claims: jws.claims.dictionary, profile: TokenProfile.select(for: jws.header, claims: jws.claims),
            signatureByteCount: jws.signature.count)
    }
}
