import Foundation
import VouchProtocol

/// The identity fields a token may carry, as the minters and the verifier name them.
public typealias IdentityClaims = IdentityProfile

/// A token that passed every rule: what the server may now act on.
public struct VerifiedToken: Sendable, Equatable {
    public var profile: TokenProfile
    public var userID: String
    /// `nce` (Layer, server-issued) or `nonce` (Sinch, client-made); empty for an ID token.
    public var nonce: String
    public var issuedAt: Int64
    public var expiresAt: Int64
    public var identity: IdentityClaims
    /// Layer: the provider in `iss` and the key in `kid`.
    public var providerID: UUID?
    public var keyID: UUID?
    /// Sinch: the application key in `iss`.
    public var applicationKey: UUID?
    /// A fetched key: its `kid` in the provider's key source (`keyID` is then `nil`).
    public var sourceKeyID: String? = nil
    /// ID token: `TokenPlan.replayDigest`, which the session's transaction records as used.
    public var replayDigest: [UInt8]? = nil
}

/// The verifier's answer about one token. A rejection is an expected outcome, so it is a value.
public enum TokenVerdict: Sendable, Equatable {
    case verified(VerifiedToken)
    /// The first rule of PROTOCOL §5.4 the token breaks.
    case rejected(TokenRejection)
}

/// Everything the validation tool reports about one token.
public struct TokenDiagnosis: Sendable, Equatable {
    /// Every broken rule found, in the order of PROTOCOL §5.4; the first is what `POST /sessions`
    /// answers. Facts named by claims (provider, nonce, user) are judged only once the signature
    /// holds, so a token with a bad signature is not told about those.
    public var rejections: [TokenRejection]
    /// The decoded header and claims, untrusted; empty when the token could not be decoded.
    public var header: [String: JSONValue]
    public var claims: [String: JSONValue]
    /// The profile that judged the token, `nil` when it could not be decoded.
    public var profile: TokenProfile?

    public var isValid: Bool { rejections.isEmpty }
}
