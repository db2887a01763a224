import Crypto
import Foundation
import VouchProtocol
import _CryptoExtras

/// A public key fetched from a provider's key source, parsed once and used for the one algorithm
/// the provider is pinned to.
public enum SourceVerificationKey: Sendable {
    case rsa(_RSA.Signing.PublicKey)
    case p256(P256.Signing.PublicKey)

    /// The algorithm the key verifies: a token whose `alg` says another is refused before this.
    public var algorithm: SourceKeyAlgorithm {
        switch self {
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// RS256: RSASSA-PKCS1-v1_5; ES256: ECDSA with the JWS signature as `r || s` (64 bytes).
    func isValid(signature: [UInt8], for message: [UInt8]) -> Bool {
        switch self {
        case .rsa(let key):
            return RS256.isValid(signature: signature, for: message, publicKey: key)
        case .p256(let key):
            guard signature.count == 64, let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else {
                return false
            }
            return key.isValidSignature(parsed, for: SHA256.hash(data: message))
        }
    }
}

/// One key a provider's JWKS publishes that Vouch takes.
public struct SourceKey: Sendable {
    public let keyID: String
    public let key: SourceVerificationKey
    /// `RSA` or `EC`.
    public let keyType: String
    /// `sha256:` + hex of the SubjectPublicKeyInfo DER, as an uploaded key's.
    public let fingerprint: String

    public init(keyID: String, key: SourceVerificationKey, keyType: String, fingerprint: String) {
        self.keyID = keyID
        self.key = key
        self.keyType = keyType
        self.fingerprint = fingerprint
    }
}

/// A JWKS document (RFC 7517) as Vouch takes it from a provider: only signature keys of the
/// provider's pinned algorithm, with sizes and exponents an uploaded key must have too.
///
/// A key Vouch could never use for the provider (another type or curve, `use` other than `sig`, an
/// `alg` other than the pinned one, a weak or odd RSA key) is skipped and said why, rather than
/// failing the whole set, so that a provider publishing an encryption key beside its signing keys
/// still works. A `kid` listed twice is dropped altogether: which of the two signed would be a
/// guess. `x5c`, `x5u` and every other member are ignored: the key is `n`/`e` or `x`/`y`.
public struct JSONWebKeySetDocument: Sendable {
    /// Why a document was not taken at all (its keys were not looked at or none was usable).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// The most keys one document may list: more is not a key set a provider publishes.
    public static let maximumKeys = 100

    public let keys: [String: SourceKey]
    /// The keys left out, each with the reason, for the operator.
    public let skipped: [(keyID: String?, reason: String)]

    public init(document: [UInt8], algorithm: SourceKeyAlgorithm) throws(Failure) {
        let members: [String: JSONValue]
        do {
            members = try StrictJSON().parseObject(document)
        } catch {
            throw Failure(description: "the JWKS is not one JSON object (\(error))")
        }
        guard case .array(let entries) = members["keys"] else {
            throw Failure(description: "the JWKS has no `keys` array")
        }
        guard entries.count <= Self.maximumKeys else {
            throw Failure(description: "the JWKS lists \(entries.count) keys, more than \(Self.maximumKeys)")
        }
        var keys: [String: SourceKey] = [:]
        var skipped: [(keyID: String?, reason: String)] = []
        var duplicates: Set<String> = []
        for entry in entries {
            guard let entry = entry.objectValue else {
                skipped.append((nil, "not a JSON object"))
                continue
            }
            let keyID = entry["kid"]?.stringValue
            switch Self.key(entry, algorithm: algorithm) {
            case .success(let key):
                if keys.updateValue(key, forKey: key.keyID) != nil { duplicates.insert(key.keyID) }
            case .failure(let failure):
                skipped.append((keyID, failure.description))
            }
        }
        for keyID in duplicates.sorted() {
            keys[keyID] = nil
            skipped.append((keyID, "the kid is listed more than once"))
        }
        // An empty set would refuse every token: more likely a broken answer than a rotation, which
        // always lists the keys of live tokens. The last good set is kept instead.
        guard !keys.isEmpty else {
            let reasons = skipped.prefix(3).map { "\($0.keyID ?? "a key"): \($0.reason)" }.joined(separator: "; ")
            throw Failure(description: "the JWKS has no usable \(algorithm.rawValue) signing key" + (reasons.isEmpty ? "" : " (\(reasons))"))
        }
        self.keys = keys
        self.skipped = skipped
    }

    private static func key(_ entry: [String: JSONValue], algorithm: SourceKeyAlgorithm) -> Result<SourceKey, Failure> {
        func refuse(_ reason: String) -> Result<SourceKey, Failure> { .failure(Failure(description: reason)) }
        guard let keyID = entry["kid"]?.stringValue else { return refuse("no `kid`") }
        guard !keyID.isEmpty, keyID.utf8.count <= SourceKeyID.maximumBytes else {
            return refuse("the `kid` is empty or longer than \(SourceKeyID.maximumBytes) bytes")
        }
        guard entry["use"]?.stringValue == "sig" else { return refuse("`use` is not `sig`") }
        if let alg = entry["alg"] {
            guard alg.stringValue == algorithm.rawValue else { return refuse("`alg` is not \(algorithm.rawValue)") }
        }
        func bytes(_ name: String) -> [UInt8]? { entry[name]?.stringValue.flatMap(Base64URL.decodeCanonical) }
        switch algorithm {
        case .rs256:
            guard entry["kty"]?.stringValue == "RSA" else { return refuse("`kty` is not RSA") }
            guard let modulus = bytes("n"), let exponent = bytes("e") else { return refuse("`n` or `e` is not base64url") }
            guard Array(exponent.drop { $0 == 0 }) == [0x01, 0x00, 0x01] else { return refuse("the exponent is not 65537") }
            let significant = Array(modulus.drop { $0 == 0 })
            let bits = significant.first.map { significant.count * 8 - $0.leadingZeroBitCount } ?? 0
            guard (PublicKeyInfo.minimumBits...PublicKeyInfo.maximumBits).contains(bits) else {
                return refuse("the RSA key has \(bits) bits, not \(PublicKeyInfo.minimumBits)–\(PublicKeyInfo.maximumBits)")
            }
            guard let key = try? _RSA.Signing.PublicKey(n: significant, e: exponent) else { return refuse("not an RSA public key") }
            return .success(SourceKey(keyID: keyID, key: .rsa(key), keyType: "RSA", fingerprint: PublicKeyInfo.fingerprint(of: key)))
        case .es256:
            guard entry["kty"]?.stringValue == "EC", entry["crv"]?.stringValue == "P-256" else {
                return refuse("`kty` is not EC on P-256")
            }
            guard let x = bytes("x"), let y = bytes("y"), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return refuse("`x`/`y` is not a point on P-256") }
            let fingerprint = "sha256:" + SHA256.hash(data: key.derRepresentation).map { String(format: "%02x", $0) }.joined()
            return .success(SourceKey(keyID: keyID, key: .p256(key), keyType: "EC", fingerprint: fingerprint))
        }
    }
}

/// The rules of a fetched key's `kid`, in a JWKS and in a token.
public enum SourceKeyID {
    /// Longer is not an identifier a provider publishes.
    public static let maximumBytes = 256
}
