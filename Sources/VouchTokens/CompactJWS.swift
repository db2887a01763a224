import Foundation
import VouchProtocol

/// A JWS in compact serialization that passed the structural rules #1–#4 of PROTOCOL §5.4:
/// nothing in it is trusted yet, it is only well-formed.
public struct CompactJWS: Sendable {
    /// Tokens above this size are refused before any parsing, so that no input costs more than a
    /// bounded amount of work.
    static let maximumSize = 8 * 1024

    public let header: JSONMembers
    public let claims: JSONMembers
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Parses a token, or throws the structural rejection it breaks first.
    public init(parsing token: some StringProtocol) throws(TokenRejection) {
        let parsed =
            token.utf8.withContiguousStorageIfAvailable { buffer in
                Result { () throws(TokenRejection) in try Self(utf8: buffer) }
            }
            ?? Array(token.utf8).withUnsafeBufferPointer { buffer in
                Result { () throws(TokenRejection) in try Self(utf8: buffer) }
            }
        self = try parsed.get()
    }

    /// Over the token's bytes where they lie: the parts are found and decoded in place.
    private init(utf8: UnsafeBufferPointer<UInt8>) throws(TokenRejection) {
        guard utf8.count <= Self.maximumSize else { throw TokenRejection(.tokenTooLarge) }

        guard let firstDot = Self.dot(in: utf8, from: 0),
            let secondDot = Self.dot(in: utf8, from: firstDot + 1),
            Self.dot(in: utf8, from: secondDot + 1) == nil
        else { throw TokenRejection(.wrongJWSPartCount) }

        func part(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: utf8[range]) }
        // The rules' order: every part's base64url (#3) before any part's JSON (#4). The header and
        // claims are decoded into temporary storage and parsed from there: only their members stay.
        guard let signature = Base64URL.decodeCanonical(part((secondDot + 1)..<utf8.count)),
            let parsed = Base64URL.withDecodedCanonical(
                part(0..<firstDot),
                { headerBytes in
                    Base64URL.withDecodedCanonical(part((firstDot + 1)..<secondDot)) { claimsBytes in
                        Self.parse(header: headerBytes, claims: claimsBytes)
                    }
                }) ?? nil
        else { throw TokenRejection(.malformedBase64URL) }
        (header, claims) = try parsed.get()
        signingInput = Array(part(0..<secondDot))
        self.signature = signature
    }

    /// The offset of the first `.` at or after `start`: `memchr`, which looks at many bytes per
    /// step, where a loop would look at each of a token's few hundred bytes in turn.
    private static func dot(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < utf8.count, let base = utf8.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(UInt8(ascii: ".")), utf8.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private static func parse(
        header: UnsafeBufferPointer<UInt8>, claims: UnsafeBufferPointer<UInt8>
    )
        -> Result<(JSONMembers, JSONMembers), TokenRejection>
    {
        let parser = StrictJSON()
        let headerMembers: JSONMembers
        do {
            headerMembers = try parser.parseMembers(header)
        } catch {
            return .failure(TokenRejection(.malformedJSON, hint: "header: \(error.explanation)"))
        }
        do {
            return .success((headerMembers, try parser.parseMembers(claims)))
        } catch {
            return .failure(TokenRejection(.malformedJSON, hint: "claims: \(error.explanation)"))
        }
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
