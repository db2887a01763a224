import Crypto

/// The issuer's ES256 public keys by `kid`, read from a JWKS document (RFC 7517).
///
/// A key this verifier could never use (another curve or type, `alg` other than ES256, `use`
/// other than `sig`, a point off the curve) is skipped rather than failing the whole set, so that
/// a key Vouch adds later for something else does not stop verification. A `kid` listed twice is
/// dropped altogether: which of the two keys signed would be a guess.
struct JSONWebKeySet: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let keys: [String: P256.Signing.PublicKey]

    init(keys: [String: P256.Signing.PublicKey]) {
        self.keys = keys
    }

    init(document: [UInt8]) throws(Failure) {
        guard let members = try? StrictJSON().parseObject(document), let entries = members["keys"]?.array else {
            throw Failure(description: "not a JSON object with a keys array")
        }
        var keys: [String: P256.Signing.PublicKey] = [:]
        var duplicates: Set<String> = []
        for entry in entries {
            guard let entry = entry.object, let (keyID, key) = Self.key(entry) else { continue }
            if keys.updateValue(key, forKey: keyID) != nil { duplicates.insert(keyID) }
        }
        for keyID in duplicates { keys[keyID] = nil }
        // An empty set would refuse every token: more likely a broken answer than a real rotation,
        // which always lists the keys of live tokens.
        guard !keys.isEmpty else { throw Failure(description: "no usable ES256 key") }
        self.keys = keys
    }

    private static func key(_ entry: [String: JSONValue]) -> (String, P256.Signing.PublicKey)? {
        guard entry["kty"]?.string == "EC", entry["crv"]?.string == "P-256",
            let keyID = entry["kid"]?.string, !keyID.isEmpty,
            entry["alg"].map({ $0.string == "ES256" }) ?? true,
            entry["use"].map({ $0.string == "sig" }) ?? true,
            let x = entry["x"]?.string.flatMap({ Base64URL.decode($0.utf8) }), x.count == 32,
            let y = entry["y"]?.string.flatMap({ Base64URL.decode($0.utf8) }), y.count == 32,
            let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
        else { return nil }
        return (keyID, key)
    }
}
