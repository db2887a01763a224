import VouchProtocol

/// A JWS in compact serialization that passed the structural rules #1–#4 of PROTOCOL §5.4:
/// nothing in it is trusted yet, it is only well-formed.
public struct CompactJWS: Sendable {
    /// Tokens above this size are refused before any parsing, so that no input costs more than a
    /// bounded amount of work.
    public static let maximumSize = 8 * 1024

    public let header: JSONMembers
    public let claims: JSONMembers
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Parses a token, or throws the structural rejection it breaks first.
    public init(parsing token: some StringProtocol) throws(TokenRejection) {
        let parsed = token.utf8.withContiguousStorageIfAvailable { buffer in
            Result { () throws(TokenRejection) in try Self(utf8: buffer) }
        } ?? Array(token.utf8).withUnsafeBufferPointer { buffer in
            Result { () throws(TokenRejection) in try Self(utf8: buffer) }
        }
        self = try parsed.get()
    }

    /// Over the token's bytes where they lie: the parts are found and decoded in place.
    private init(utf8: UnsafeBufferPointer<UInt8>) throws(TokenRejection) {
        guard utf8.count <= Self.maximumSize else { throw TokenRejection(.tokenTooLarge) }

        let dot = UInt8(ascii: ".")
        guard let firstDot = utf8.firstIndex(of: dot),
              let secondDot = utf8[(firstDot + 1)...].firstIndex(of: dot),
              !utf8[(secondDot + 1)...].contains(dot)
        else { throw TokenRejection(.wrongJWSPartCount) }

        func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: utf8[range]) }
        guard let headerBytes = Base64URL.decodeCanonical(part(0..<firstDot)),
              let claimsBytes = Base64URL.decodeCanonical(part((firstDot + 1)..<secondDot)),
              let signature = Base64URL.decodeCanonical(part((secondDot + 1)..<utf8.count))
        else { throw TokenRejection(.malformedBase64URL) }

        let parser = StrictJSON()
        do {
            header = try parser.parseMembers(headerBytes)
        } catch {
            throw TokenRejection(.malformedJSON, hint: "header: \(error.explanation)")
        }
        do {
            claims = try parser.parseMembers(claimsBytes)
        } catch {
            throw TokenRejection(.malformedJSON, hint: "claims: \(error.explanation)")
        }
        signingInput = Array(part(0..<secondDot))
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
