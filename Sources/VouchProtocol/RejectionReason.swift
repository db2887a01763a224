/// Why an identity token was refused: the ordered table of PROTOCOL §5.4.
///
/// The declaration order *is* the check order: a token breaking several rules is refused with the
/// first of them, so that the same token always gets the same answer, and so that nothing read from
/// the claims is trusted before the signature holds (rules after #12 may look things up).
public enum RejectionReason: String, Codable, Sendable, CaseIterable, Comparable {
    case tokenTooLarge = "eit_token_too_large"
    case wrongJWSPartCount = "eit_wrong_jws_part_count"
    case malformedBase64URL = "eit_malformed_base64url"
    case malformedJSON = "eit_malformed_json"
    case headerParamNotFound = "eit_header_param_not_found"
    case headerParamWrongType = "eit_header_param_wrong_type"
    case headerParamWrongValue = "eit_header_param_wrong_value"
    case keyMalformed = "eit_key_malformed"
    case keyNotFound = "eit_key_not_found"
    case keyDeleted = "eit_key_deleted"
    case keyDisabled = "eit_key_disabled"
    case signatureVerificationFailed = "eit_signature_verification_failed"
    case claimNotFound = "eit_claim_not_found"
    case claimWrongType = "eit_claim_wrong_type"
    case claimWrongValue = "eit_claim_wrong_value"
    case providerNotFound = "eit_provider_not_found"
    case providerNotBoundToApp = "eit_provider_not_bound_to_app"
    case expired = "eit_expired"
    case notBefore = "eit_not_before"
    case ttlTooShort = "eit_ttl_too_short"
    case nonceNotFound = "eit_nonce_not_found"
    case nonceReplayed = "eit_nonce_replayed"
    case userSuspended = "eit_user_suspended"
    case ttlTooLong = "eit_ttl_too_long"
    case tokenReplayed = "eit_token_replayed"

    /// The rule's number in PROTOCOL §5.4 (1-based).
    public var rank: Int {
        Self.allCases.firstIndex(of: self).map { $0 + 1 } ?? Int.max
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }

    /// The description of PROTOCOL §5.4, verbatim: it is the `message` of the 422.
    public var message: String {
        switch self {
        case .tokenTooLarge:
            "Identity token is larger than 8 KiB."
        case .wrongJWSPartCount:
            "Invalid identity token structure: a JWS compact token has exactly three dot-separated parts."
        case .malformedBase64URL:
            "Invalid identity token structure. Should be Base64 URL encoded: canonical, with no padding, no `+` `/`, no white space, and zero unused trailing bits (so one token has exactly one spelling)."
        case .malformedJSON:
            "Invalid identity token structure: header and claims must each be one JSON object, with no duplicate names."
        case .headerParamNotFound:
            "Invalid header. Missing parameter (`data.param`)."
        case .headerParamWrongType:
            "Invalid header. Wrong type (`data.param`)."
        case .headerParamWrongValue:
            "Invalid header. `typ` should be `JWT` (or `JWS`), `alg` `RS256`, `cty` `layer-eit;v=1`; any `crit` is refused."
        case .keyMalformed:
            "The Key ID you specified is malformed (`layer:///keys/` followed by something that is not a UUID)."
        case .keyNotFound:
            "Authentication Key in the `kid` field is invalid. Make sure you provide a valid Authentication Key (Should start with layer:///keys/...)."
        case .keyDeleted:
            "The Key ID you specified has been deleted. Please use a different key or create a new one."
        case .keyDisabled:
            "The Key ID you specified has been disabled. Please use a different key or create a new one."
        case .signatureVerificationFailed:
            "Signature verification failed: the token was signed by a different private key than the one named in `kid`."
        case .claimNotFound:
            "Invalid claim. Missing value (`data.claim`)."
        case .claimWrongType:
            "Invalid claim. Wrong value type (`data.claim`): `iat`/`exp` are integers, the rest strings."
        case .claimWrongValue:
            "Invalid claim value (`data.claim`): empty or over-long user id, control characters, fields over their limits (names 128 bytes, avatar_url 1024)."
        case .providerNotFound:
            "A valid Provider ID should be set in the `iss` field (it must be the provider that owns the key)."
        case .providerNotBoundToApp:
            "This Provider ID found in the `iss` field is not bound to a valid Application."
        case .expired:
            "Token expired. Check your expiration timestamp found in the `exp` field."
        case .notBefore:
            "This identity token can not be used before the `iat` timestamp (mention milliseconds when `iat` looks like it is in ms)."
        case .ttlTooShort:
            "(Sinch profile) `exp − iat` is under 60 seconds."
        case .nonceNotFound:
            "Nonce not found or has expired (also: already used)."
        case .nonceReplayed:
            "(Sinch profile) This nonce was already used."
        case .userSuspended:
            "Provided User ID found in the `prn` field has been blacklisted."
        case .ttlTooLong:
            "(ID token) `exp − iat` is over an hour: a federated provider's ID token must be short-lived."
        case .tokenReplayed:
            "(ID token) This ID token already signed a user in: get a fresh one from the provider."
        }
    }
}
