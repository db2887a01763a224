import Foundation
import VouchProtocol

/// The two token profiles of PROTOCOL §5.
public enum TokenProfile: String, Sendable, Codable, Equatable {
    /// Layer identity token: RS256, `cty: layer-eit;v=1`, server-issued nonce.
    case layer
    /// Sinch registration token: HS256 with a daily derived key, `kid: hkdfv1-YYYYMMDD`.
    case sinch

    /// PROTOCOL §5.3: the header picks the profile; anything unrecognised is judged as Layer and
    /// so fails the first Layer rule it breaks. The algorithm is never taken from the token.
    public static func select(for header: [String: JSONValue]) -> TokenProfile {
        select(cty: header["cty"], kid: header["kid"])
    }

    static func select(for header: JSONMembers) -> TokenProfile {
        select(cty: header["cty"], kid: header["kid"])
    }

    private static func select(cty: JSONValue?, kid: JSONValue?) -> TokenProfile {
        if cty?.stringValue?.bytesEqual(LayerPolicy.contentType) == true { return .layer }
        if cty == nil, let kid = kid?.stringValue, kid.bytesHavePrefix(SinchSigningKey.kidPrefix) {
            return .sinch
        }
        return .layer
    }
}

/// The identity fields a token may carry, as the minters and the verifier name them.
public typealias IdentityClaims = IdentityProfile

/// A token that passed every rule: what the server may now act on.
public struct VerifiedToken: Sendable, Equatable {
    public var profile: TokenProfile
    public var userID: String
    /// `nce` (Layer, server-issued) or `nonce` (Sinch, client-made).
    public var nonce: String
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var identity: IdentityClaims
    /// Layer: the provider in `iss` and the key in `kid`.
    public var providerID: UUID?
    public var keyID: UUID?
    /// Sinch: the application key in `iss`.
    public var applicationKey: UUID?
    /// Layer: what the context learned about the nonce when it found it usable (the hash its
    /// single use is recorded under), so the session can consume it without opening it again.
    public var serverNonceUse: ServerNonceUse?
}

/// The verifier's answer about one token. A rejection is an expected outcome, so it is a value;
/// only a failure of the world (the database is down) is thrown, and says nothing about the token.
public enum TokenVerdict: Sendable, Equatable {
    case verified(VerifiedToken)
    /// The first rule of PROTOCOL §5.4 the token breaks.
    case rejected(TokenRejection)
}

/// Everything the validation tool reports about one token.
public struct TokenDiagnosis: Sendable, Equatable {
    /// Every broken rule found, in the order of PROTOCOL §5.4; the first is what `POST /sessions`
    /// answers. Lookups based on claims (provider, nonce, user) are only made once the signature
    /// holds, so a token with a bad signature is not told about those.
    public var rejections: [TokenRejection]
    /// The decoded header and claims, untrusted; empty when the token could not be decoded.
    public var header: [String: JSONValue]
    public var claims: [String: JSONValue]
    /// The profile that judged the token, `nil` when it could not be decoded.
    public var profile: TokenProfile?

    public var isValid: Bool { rejections.isEmpty }
}
