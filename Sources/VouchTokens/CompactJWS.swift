import VouchProtocol

/// A JWS in compact serialization that passed the structural rules #1–#4 of PROTOCOL §5.4:
/// nothing in it is trusted yet, it is only well-formed.
public struct CompactJWS: Sendable {
    /// Tokens above this size are refused before any parsing, so that no input costs more than a
    /// bounded amount of work.
    public static let maximumSize = 8 * 1024

    public let header: [String: JSONValue]
    public let claims: [String: JSONValue]
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Parses a token, or throws the structural rejection it breaks first.
    public init(parsing token: some StringProtocol) throws(TokenRejection) {
        let utf8 = Array(token.utf8)
        guard utf8.count <= Self.maximumSize else { throw TokenRejection(.tokenTooLarge) }

        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw TokenRejection(.wrongJWSPartCount) }

        guard let headerBytes = Base64URL.decodeCanonical(parts[0]),
              let claimsBytes = Base64URL.decodeCanonical(parts[1]),
              let signature = Base64URL.decodeCanonical(parts[2])
        else { throw TokenRejection(.malformedBase64URL) }

        let parser = StrictJSON()
        do {
            header = try parser.parseObject(headerBytes)
        } catch {
            throw TokenRejection(.malformedJSON, hint: "header: \(error.explanation)")
        }
        do {
            claims = try parser.parseObject(claimsBytes)
        } catch {
            throw TokenRejection(.malformedJSON, hint: "claims: \(error.explanation)")
        }
        signingInput = Array(utf8[..<(parts[1].endIndex)])
        self.signature = signature
    }
}

extension StrictJSON.Failure {
    /// What went wrong, in words safe to show the token's author (no token content beyond a name).
    var explanation: String {
        switch self {
        case .invalidUTF8: "not valid UTF-8"
        case .unexpectedEnd: "ends too early"
        case .unexpectedByte(let offset): "unexpected character at byte \(offset)"
        case .duplicateName(let name): "duplicate member \"\(name.prefix(64))\""
        case .tooDeep: "nested too deeply"
        case .invalidString(let offset): "invalid string at byte \(offset)"
        case .invalidNumber(let offset): "invalid number at byte \(offset)"
        case .trailingBytes(let offset): "unexpected data after the object at byte \(offset)"
        case .notAnObject: "not a JSON object"
        }
    }
}
