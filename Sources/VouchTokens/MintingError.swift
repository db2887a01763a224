/// Why a token could not be minted: all of these are mistakes in the minter's input, reported
/// before anything is signed so that an app's backend never hands out a token the server refuses.
public enum MintingError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidPrivateKey(String)
    case keyTooSmall(bits: Int)
    case invalidApplicationSecret
    case invalidUserID(String)
    case invalidNonce
    case invalidTTL(Int64)
    case invalidIssueTime(Int64)
    case invalidClaim(String)

    public var description: String {
        switch self {
        case .invalidPrivateKey(let detail): "the private key could not be read: \(detail)"
        case .keyTooSmall(let bits): "the RSA key has \(bits) bits; at least 2048 are required"
        case .invalidApplicationSecret: "the application secret must be base64 of at least 16 bytes"
        case .invalidUserID(let rule): "invalid user id: \(rule)"
        case .invalidNonce: "the nonce must be 1…1024 bytes without control characters"
        case .invalidTTL(let ttl): "invalid TTL \(ttl): it must be between 60 and 86400 seconds"
        case .invalidIssueTime(let time): "invalid issue time \(time): it must be Unix seconds between 0 and 253402300799 (9999-12-31) less the TTL"
        case .invalidClaim(let name): "invalid value for \(name)"
        }
    }
}
