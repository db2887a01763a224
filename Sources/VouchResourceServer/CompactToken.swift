/// A compact JWS split and decoded, with the header's rules applied: what can be known about a
/// token before its signature is checked.
///
/// Only the header is read before the signature holds, and from it only `alg` (which must be
/// `ES256`, the algorithm Vouch signs with), `typ` and `kid`; `jku`, `x5u`, `jwk` and `x5c` are
/// never read, so a token cannot point the verifier at a key of its choosing.
struct CompactToken {
    /// The issuer's key to check the signature with.
    let keyID: String
    /// `BASE64URL(header) . BASE64URL(payload)`, the bytes the signature covers.
    let signingInput: ArraySlice<UInt8>
    /// The claims' JSON, not parsed until the signature holds.
    let payload: [UInt8]
    /// The raw r‖s signature, 64 bytes for ES256.
    let signature: [UInt8]

    init(_ bytes: [UInt8]) throws(AccessTokenRejection) {
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
            let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
            !bytes[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else { throw .malformed("not three dot-separated parts") }
        guard let headerBytes = Base64URL.decode(bytes[..<firstDot]), let payload = Base64URL.decode(bytes[(firstDot + 1)..<secondDot]),
            let signature = Base64URL.decode(bytes[(secondDot + 1)...])
        else { throw .malformed("a part is not unpadded base64url") }
        guard let header = try? StrictJSON().parseObject(headerBytes) else { throw .malformed("header is not a JSON object") }
        guard let algorithm = header["alg"]?.string else { throw .malformed("header has no alg") }
        guard algorithm == "ES256" else { throw .unsupportedAlgorithm }
        // RFC 7515 §4.1.11: extensions a verifier does not understand must fail it; this one knows none.
        guard header["crit"] == nil else { throw .malformed("header has crit") }
        guard header["typ"]?.string == "at+jwt" else { throw .wrongType }
        guard let keyID = header["kid"]?.string, !keyID.isEmpty else { throw .malformed("header has no kid") }
        guard !payload.isEmpty, !signature.isEmpty else { throw .malformed("empty payload or signature") }
        self.keyID = keyID
        self.signingInput = bytes[..<secondDot]
        self.payload = payload
        self.signature = signature
    }
}
