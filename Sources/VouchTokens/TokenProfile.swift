import VouchProtocol
import VouchSupport

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

    /// The claim that carries the nonce (#21, #22).
    public var nonceClaim: String {
        switch self {
        case .layer: "nce"
        case .sinch: "nonce"
        }
    }

    /// The claim that names the user (#15, #23).
    var userClaim: String {
        switch self {
        case .layer: "prn"
        case .sinch: "sub"
        }
    }

    /// #21/#22 for a nonce that already admitted a sign-in: a used Layer server nonce is as unknown
    /// as a forged one (its issuer's word is spent), a Sinch client nonce seen before is a replay.
    /// The verdict and the session's transaction both answer with it, so they cannot disagree.
    public var usedNonceRejection: TokenRejection {
        switch self {
        case .layer: TokenRejection(.nonceNotFound, claim: nonceClaim)
        case .sinch: TokenRejection(.nonceReplayed, claim: nonceClaim)
        }
    }

    /// #23, on the claim that names the user.
    public var suspendedUserRejection: TokenRejection {
        TokenRejection(.userSuspended, claim: userClaim)
    }
}
