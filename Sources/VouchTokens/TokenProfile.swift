import VouchProtocol
import VouchSupport

/// The token profiles of PROTOCOL §5.
public enum TokenProfile: String, Sendable, Codable, Equatable {
    /// Layer identity token: RS256, `cty: layer-eit;v=1`, server-issued nonce.
    case layer
    /// Sinch registration token: HS256 with a daily derived key, `kid: hkdfv1-YYYYMMDD`.
    case sinch
    /// A federated provider's own OpenID Connect ID token (PROTOCOL §8.18): no Vouch nonce, so
    /// single use is the token's own (`jti`, or its hash).
    case idToken = "id_token"

    /// PROTOCOL §5.3 and §8.18: the header picks the profile, and for a header that is neither
    /// Layer's nor Sinch's, an `iss` outside `layer:///` picks an ID token; anything unrecognised
    /// is judged as Layer and so fails the first Layer rule it breaks. The algorithm is never
    /// taken from the token.
    public static func select(for header: [String: JSONValue], claims: [String: JSONValue]) -> TokenProfile {
        select(cty: header["cty"], kid: header["kid"], issuer: claims["iss"])
    }

    static func select(for header: JSONMembers, claims: JSONMembers) -> TokenProfile {
        select(cty: header["cty"], kid: header["kid"], issuer: claims["iss"])
    }

    private static func select(cty: JSONValue?, kid: JSONValue?, issuer: JSONValue?) -> TokenProfile {
        if cty?.stringValue?.bytesEqual(LayerPolicy.contentType) == true { return .layer }
        guard cty == nil else { return .layer }
        if let kid = kid?.stringValue, kid.bytesHavePrefix(SinchSigningKey.kidPrefix) { return .sinch }
        if let issuer = issuer?.stringValue, !issuer.isEmpty, !issuer.bytesHavePrefix("layer:///") { return .idToken }
        return .layer
    }

    /// The claim that carries the nonce (#21, #22).
    public var nonceClaim: String {
        switch self {
        case .layer: "nce"
        case .sinch, .idToken: "nonce"
        }
    }

    /// The claim that names the user (#15, #23).
    var userClaim: String {
        switch self {
        case .layer: "prn"
        case .sinch, .idToken: "sub"
        }
    }

    /// #21/#22 for a nonce that already admitted a sign-in: a used Layer server nonce is as unknown
    /// as a forged one (its issuer's word is spent), a Sinch client nonce seen before is a replay.
    /// The verdict and the session's transaction both answer with it, so they cannot disagree.
    public var usedNonceRejection: TokenRejection {
        switch self {
        case .layer: TokenRejection(.nonceNotFound, claim: nonceClaim)
        case .sinch: TokenRejection(.nonceReplayed, claim: nonceClaim)
        case .idToken: TokenRejection(.tokenReplayed)
        }
    }

    /// #23, on the claim that names the user.
    public var suspendedUserRejection: TokenRejection {
        TokenRejection(.userSuspended, claim: userClaim)
    }
}
