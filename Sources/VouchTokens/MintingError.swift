/// Why a token could not be minted: all of these are mistakes in the minter's input, reported
/// before anything is signed so that an app's backend never hands out a token the server refuses.
///
/// A struct with a `kind` rather than an enum, so that a kind added later breaks no backend:
/// compare with the static members (`error.kind == .invalidNonce`), keep a `default:` in a switch.
public struct MintingError: Error, Equatable, Sendable, CustomStringConvertible {
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case invalidPrivateKey, keyTooSmall, invalidApplicationSecret, invalidUserID, invalidNonce
            case invalidTTL, invalidIssueTime, invalidClaim
        }

        fileprivate let base: Base

        public var description: String { base.rawValue }

        /// The private key could not be read (`detail` says why).
        public static let invalidPrivateKey = Kind(base: .invalidPrivateKey)
        /// An RSA key under 2048 bits (`bits`).
        public static let keyTooSmall = Kind(base: .keyTooSmall)
        /// A Sinch application secret that is not base64 of at least 16 bytes.
        public static let invalidApplicationSecret = Kind(base: .invalidApplicationSecret)
        /// A user id the profile does not allow (`detail` is the rule).
        public static let invalidUserID = Kind(base: .invalidUserID)
        /// An empty, over-long or control-character nonce.
        public static let invalidNonce = Kind(base: .invalidNonce)
        /// A lifetime outside 60…86 400 s (`value`).
        public static let invalidTTL = Kind(base: .invalidTTL)
        /// An issue time outside what the verifier accepts (`value`).
        public static let invalidIssueTime = Kind(base: .invalidIssueTime)
        /// An optional claim with a bad value (`detail` is its name).
        public static let invalidClaim = Kind(base: .invalidClaim)
    }

    public let kind: Kind
    /// The reader's complaint, the user-id rule, or the claim's name, for the kinds that have one.
    public let detail: String?
    /// The key's bits, the TTL or the issue time, for the kinds that have one.
    public let value: Int64?

    private init(_ kind: Kind, detail: String? = nil, value: Int64? = nil) {
        self.kind = kind
        self.detail = detail
        self.value = value
    }

    public static func invalidPrivateKey(_ detail: String) -> Self { Self(.invalidPrivateKey, detail: detail) }
    public static func keyTooSmall(bits: Int) -> Self { Self(.keyTooSmall, value: Int64(bits)) }
    public static let invalidApplicationSecret = Self(.invalidApplicationSecret)
    public static func invalidUserID(_ rule: String) -> Self { Self(.invalidUserID, detail: rule) }
    public static let invalidNonce = Self(.invalidNonce)
    public static func invalidTTL(_ ttl: Int64) -> Self { Self(.invalidTTL, value: ttl) }
    public static func invalidIssueTime(_ time: Int64) -> Self { Self(.invalidIssueTime, value: time) }
    public static func invalidClaim(_ name: String) -> Self { Self(.invalidClaim, detail: name) }

    /// Lets `catch MintingError.x` and `case MintingError.x:` match any error equal to `x`.
    public static func ~= (pattern: Self, error: any Error) -> Bool { (error as? Self) == pattern }

    public var description: String {
        let detail = detail ?? "", value = value.map(String.init) ?? ""
        return switch kind.base {
        case .invalidPrivateKey: "the private key could not be read: \(detail)"
        case .keyTooSmall: "the RSA key has \(value) bits; at least 2048 are required"
        case .invalidApplicationSecret: "the application secret must be base64 of at least 16 bytes"
        case .invalidUserID: "invalid user id: \(detail)"
        case .invalidNonce: "the nonce must be 1…1024 bytes without control characters"
        case .invalidTTL: "invalid TTL \(value): it must be between 60 and 86400 seconds"
        case .invalidIssueTime: "invalid issue time \(value): it must be Unix seconds between 0 and 253402300799 (9999-12-31) less the TTL"
        case .invalidClaim: "invalid value for \(detail)"
        }
    }
}
