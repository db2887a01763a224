/// Why an access token was refused, as a value a service can map to its own answer (401, a closed
/// socket) without parsing text.
///
/// A struct with a `kind` rather than an enum, so that a kind added later breaks no caller: compare
/// with the static members (`catch AccessTokenRejection.expired`, `rejection.kind == .badSignature`).
/// Neither the kind nor the detail ever contains the token or any text taken from it, so a
/// rejection can be logged as it is.
public struct AccessTokenRejection: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule the token broke.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case malformed, unsupportedAlgorithm, wrongType, unknownKey, badSignature, wrongIssuer, wrongAudience
            case expired, notYetValid, lifetimeTooLong, sessionEnded, keysUnavailable
        }

        fileprivate let base: Base

        /// The kind's name (`expired`), fit for logs and for a JSON body's `reason`.
        public var description: String { base.rawValue }

        /// Not a compact JWS of the expected shape: bad base64url, JSON, a missing or mistyped
        /// claim, a missing `kid`, a `crit` header, or more bytes than any access token has.
        public static let malformed = Kind(base: .malformed)
        /// The header's `alg` is not `ES256` (`none`, `HS256` and `RS256` included): the algorithm
        /// comes from the pinned issuer, never from the token.
        public static let unsupportedAlgorithm = Kind(base: .unsupportedAlgorithm)
        /// The header's `typ` is not `at+jwt` (RFC 9068): another kind of JWT from the same keys
        /// must not pass as an access token.
        public static let wrongType = Kind(base: .wrongType)
        /// No key of the issuer's key set has the token's `kid`, even after a refetch.
        public static let unknownKey = Kind(base: .unknownKey)
        /// The signature does not hold for the key named by `kid`.
        public static let badSignature = Kind(base: .badSignature)
        /// `iss` is not the pinned issuer.
        public static let wrongIssuer = Kind(base: .wrongIssuer)
        /// `aud` does not name the pinned audience: the token was minted for another service.
        public static let wrongAudience = Kind(base: .wrongAudience)
        /// `exp` is past, beyond the clock leeway.
        public static let expired = Kind(base: .expired)
        /// `iat` is in the future, beyond the clock leeway.
        public static let notYetValid = Kind(base: .notYetValid)
        /// `exp − iat` is over 300 seconds: Vouch never mints such a token.
        public static let lifetimeTooLong = Kind(base: .lifetimeTooLong)
        /// The token's session ended (signed out, revoked, cut off, suspended) after it was minted.
        public static let sessionEnded = Kind(base: .sessionEnded)
        /// The issuer's key set has never been fetched successfully: nothing can be verified yet.
        public static let keysUnavailable = Kind(base: .keysUnavailable)
    }

    /// The rule the token broke: what a caller decides on.
    public let kind: Kind
    /// What exactly was wrong, for logs (`"header has no kid"`); never text from the token.
    public let detail: String?

    init(_ kind: Kind, detail: String? = nil) {
        self.kind = kind
        self.detail = detail
    }

    // One rejection per kind, so that `catch AccessTokenRejection.expired` reads as the rule it names.
    /// A rejection of kind ``Kind/malformed``.
    public static let malformed = AccessTokenRejection(.malformed)
    /// A rejection of kind ``Kind/unsupportedAlgorithm``.
    public static let unsupportedAlgorithm = AccessTokenRejection(.unsupportedAlgorithm)
    /// A rejection of kind ``Kind/wrongType``.
    public static let wrongType = AccessTokenRejection(.wrongType)
    /// A rejection of kind ``Kind/unknownKey``.
    public static let unknownKey = AccessTokenRejection(.unknownKey)
    /// A rejection of kind ``Kind/badSignature``.
    public static let badSignature = AccessTokenRejection(.badSignature)
    /// A rejection of kind ``Kind/wrongIssuer``.
    public static let wrongIssuer = AccessTokenRejection(.wrongIssuer)
    /// A rejection of kind ``Kind/wrongAudience``.
    public static let wrongAudience = AccessTokenRejection(.wrongAudience)
    /// A rejection of kind ``Kind/expired``.
    public static let expired = AccessTokenRejection(.expired)
    /// A rejection of kind ``Kind/notYetValid``.
    public static let notYetValid = AccessTokenRejection(.notYetValid)
    /// A rejection of kind ``Kind/lifetimeTooLong``.
    public static let lifetimeTooLong = AccessTokenRejection(.lifetimeTooLong)
    /// A rejection of kind ``Kind/sessionEnded``.
    public static let sessionEnded = AccessTokenRejection(.sessionEnded)
    /// A rejection of kind ``Kind/keysUnavailable``.
    public static let keysUnavailable = AccessTokenRejection(.keysUnavailable)

    static func malformed(_ detail: String) -> AccessTokenRejection { AccessTokenRejection(.malformed, detail: detail) }

    /// Equal when the kinds are: the detail is for logs, not for deciding.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }

    /// Lets `catch AccessTokenRejection.x` and `case AccessTokenRejection.x:` match any rejection
    /// of that kind.
    public static func ~= (pattern: Self, error: any Error) -> Bool { (error as? Self) == pattern }

    /// The kind and the detail, for logs: never any text of the token.
    public var description: String { detail.map { "\(kind): \($0)" } ?? kind.description }
}
